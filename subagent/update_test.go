package subagent_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dsh-bridge/dsh-bridge/subagent"
)

// TestUpdateSchema: every subagent_update the package builds is valid
// against the schema written down in testdata, and the schema refuses
// what ACP's shapes do not allow.
func TestUpdateSchema(t *testing.T) {
	f, err := os.Open("testdata/subagent-update.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	child := &subagent.Child{SessionID: "sub_1", TaskCallID: "t1", Title: "Find it", Agent: subagent.Agent{Name: "explore"}}
	for _, tc := range []struct {
		name  string
		v     any
		valid bool
	}{
		{"announce", subagent.Announce(child), true},
		{"ended", subagent.Ended("sub_1", subagent.Outcome{Stop: subagent.StopEndTurn}), true},
		{"cancelled", subagent.Ended("sub_1", subagent.Outcome{Stop: subagent.StopCancelled}), true},
		{"failed", subagent.Ended("sub_1", subagent.Outcome{Stop: subagent.StopError, Err: errors.New("boom")}), true},
		{"no session id", map[string]any{"sessionUpdate": "subagent_update"}, false},
		{"unknown state", map[string]any{"sessionUpdate": "subagent_update", "sessionId": "s", "state": map[string]any{"state": "busy"}}, false},
		{"an error without the error stop", map[string]any{"sessionUpdate": "subagent_update", "sessionId": "s",
			"state": map[string]any{"state": "idle", "stopReason": "end_turn", "error": map[string]any{"code": 1, "message": "x"}}}, false},
		{"a stop reason on running", map[string]any{"sessionUpdate": "subagent_update", "sessionId": "s", "state": map[string]any{"state": "running", "stopReason": "end_turn"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(tc.v)
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); (err == nil) != tc.valid {
				t.Fatalf("%s: valid %v, want %v (%v)", b, err == nil, tc.valid, err)
			}
		})
	}
}

// TestReplayed: a logged child is replayed as a schema-valid update
// whatever the log says: a stop reason ACP does not allow (forged,
// corrupt, or none) is the unknown state, titles are cut, and a child
// without an id is no update.
func TestReplayed(t *testing.T) {
	for _, tc := range []struct {
		name, id, title, stop string
		ok                    bool
		state, stopReason     string
	}{
		{"ended", "sub_1", "Find it", subagent.StopEndTurn, true, "idle", "end_turn"},
		{"failed", "sub_1", "Find it", subagent.StopError, true, "idle", "error"},
		{"forged stop", "sub_1", "Find it", "pwned\"", true, "unknown", ""},
		{"no stop (the bridge stopped under it)", "sub_1", "Find it", "", true, "unknown", ""},
		{"huge title", "sub_1", strings.Repeat("é", 1<<20), subagent.StopCancelled, true, "idle", "cancelled"},
		{"no id", "", "Find it", subagent.StopEndTurn, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, ok := subagent.Replayed(tc.id, tc.title, "explore", tc.stop)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if u.State == nil || u.State.State != tc.state || u.State.StopReason != tc.stopReason {
				t.Errorf("state %+v, want %s/%s", u.State, tc.state, tc.stopReason)
			}
			if n := utf8.RuneCountInString(u.Title); n > subagent.MaxTitle || !utf8.ValidString(u.Title) {
				t.Errorf("title of %d runes (valid %v)", n, utf8.ValidString(u.Title))
			}
			b, _ := json.Marshal(u)
			inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err := updateSchema(t).Validate(inst); err != nil {
				t.Errorf("%s: %v", b, err)
			}
		})
	}
}

// TestTitle: a title is one line of at most MaxTitle runes, cut on a
// rune's boundary.
func TestTitle(t *testing.T) {
	long := strings.Repeat("日本", 200)
	for _, tc := range []struct{ name, in, want string }{
		{"short", "Find TODOs", "Find TODOs"},
		{"lines and spaces", "  Find\n\tTODOs  ", "Find TODOs"},
		{"long", long, string([]rune(long)[:subagent.MaxTitle-1]) + "…"},
		{"a megabyte of spaces then words", strings.Repeat(" ", 1<<20) + "x", "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := subagent.Title(tc.in); got != tc.want {
				t.Errorf("Title = %q, want %q", got, tc.want)
			}
		})
	}
}

func updateSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/subagent-update.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
