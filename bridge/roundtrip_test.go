package bridge_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// TestLiveModel_LoadRoundTrip: what the session log records besides its
// turns (the mode, each config option, the title) is the same after
// session/load in a new process as it was before, the last of several
// changes winning.
func TestLiveModel_LoadRoundTrip(t *testing.T) {
	w := newLiveWorld(t, "", fakeTurn{text: "one"}, fakeTurn{text: "two"}, fakeTurn{text: "three"})
	e := w.editor(nil)
	s := e.newSession(w.dir)
	e.prompt(s, "the first prompt names the session")
	var last json.RawMessage
	for _, set := range [][2]string{{"thought_level", "high"}, {"model", "deepseek-v4-pro"}, {"thought_level", "max"}, {"mode", "plan"}} {
		res, err := e.call("session/set_config_option", map[string]any{"sessionId": s, "configId": set[0], "value": set[1]})
		if err != nil {
			t.Fatalf("set %s=%s: %+v", set[0], set[1], err)
		}
		last = res
	}
	for _, mode := range []string{"default", "acceptEdits"} {
		if _, err := e.call("session/set_mode", map[string]any{"sessionId": s, "modeId": mode}); err != nil {
			t.Fatalf("set_mode %s: %+v", mode, err)
		}
	}
	e.prompt(s, "the second prompt")
	before := configOptions(t, last)
	before["mode"] = "" // set_mode changed it after: compared through modes below
	title := func(e *editor) string {
		res, err := e.call("session/list", map[string]any{"cwd": w.dir})
		if err != nil {
			t.Fatalf("session/list: %+v", err)
		}
		var l struct {
			Sessions []struct{ SessionID, Title string }
		}
		json.Unmarshal(res, &l)
		for _, x := range l.Sessions {
			if x.SessionID == s {
				return x.Title
			}
		}
		return ""
	}
	wantTitle := title(e)
	e.close()

	e2 := w.editor(nil)
	loaded := w.load(e2, s)
	after := configOptions(t, loaded)
	var modes struct {
		Modes struct{ CurrentModeID string }
	}
	json.Unmarshal(loaded, &modes)
	if modes.Modes.CurrentModeID != "acceptEdits" || !strings.HasPrefix(after["mode"], "acceptEdits of") {
		t.Errorf("got mode %q (option %q) after the load, want acceptEdits", modes.Modes.CurrentModeID, after["mode"])
	}
	after["mode"] = ""
	if !maps.Equal(after, before) {
		t.Errorf("got config options %v after the load, want %v", after, before)
	}
	if got := title(e2); got != wantTitle || wantTitle == "" {
		t.Errorf("got title %q after the load, want %q", got, wantTitle)
	}
	e2.prompt(s, "after the load")
	if reqs := w.model.recorded(); reqs[len(reqs)-1].Model != "deepseek-v4-pro" || reqs[len(reqs)-1].ReasoningEffort != "max" {
		t.Errorf("got the request after the load to %q at effort %q, want deepseek-v4-pro at max", reqs[len(reqs)-1].Model, reqs[len(reqs)-1].ReasoningEffort)
	}
}
