package subagent_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

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
