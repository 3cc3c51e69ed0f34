package bridge_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// askResult runs one ask_user call from the model through a fake editor
// with caps (elicit answers elicitation/create, permission
// session/request_permission) and returns the result text the model got
// back, the stop reason, and the editor.
func askResult(t *testing.T, caps map[string]any, mode, args string, elicit func(*editor, json.RawMessage) (any, *rpcError), permission func(json.RawMessage) any) (string, string, *editor) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t, fakeTurn{calls: []fakeCall{{"q1", "ask_user", args}}}, fakeTurn{text: "thanks"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL)
	e.onPermission = permission
	if elicit != nil {
		e.onElicit = func(p json.RawMessage) (any, *rpcError) { return elicit(e, p) }
	}
	e.initialize(caps)
	s := e.newSession(dir)
	if mode != "" {
		if _, err := e.call("session/set_mode", map[string]any{"sessionId": s, "modeId": mode}); err != nil {
			t.Fatal(err)
		}
	}
	e.mu.Lock()
	e.nextSession = s
	e.mu.Unlock()
	stop := e.prompt(s, "pick a database")
	result := ""
	for _, r := range m.recorded() {
		for _, msg := range r.Messages {
			if msg.ToolCallID == "q1" {
				result, _ = msg.Content.(string)
			}
		}
	}
	return result, stop, e
}

var elicitCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

const dbQuestion = `{"question":"Which database?","choices":["Postgres","SQLite"]}`

// TestAskUser_Elicitation: with form elicitation advertised, the question
// goes as elicitation/create (schema-valid, tied to the call, the choices
// as the answer's enum) and each outcome is a result the model reads.
func TestAskUser_Elicitation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer any
		rerr   *rpcError
		want   string
	}{
		{"accept", map[string]any{"action": "accept", "content": map[string]any{"answer": "SQLite"}}, nil, "The user answered: SQLite"},
		{"decline", map[string]any{"action": "decline"}, nil, "The user declined to answer"},
		{"cancel", map[string]any{"action": "cancel"}, nil, "The question was cancelled before the user answered"},
		{"an answer not among the choices", map[string]any{"action": "accept", "content": map[string]any{"answer": "Oracle"}}, nil, `The question could not be asked: the editor answered "Oracle", which is not one of the choices`},
		{"a client error", nil, &rpcError{Code: -32603, Message: "form broke"}, "The question could not be asked: the editor's answer to elicitation/create was an error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, stop, e := askResult(t, elicitCaps, "", dbQuestion, func(*editor, json.RawMessage) (any, *rpcError) { return tc.answer, tc.rerr }, nil)
			if !strings.HasPrefix(got, tc.want) || stop != "end_turn" {
				t.Errorf("result %q (stop %s), want %q", got, stop, tc.want)
			}
			e.mu.Lock()
			elicited, asked := e.elicited, len(e.asked)
			e.mu.Unlock()
			if len(elicited) != 1 || asked != 0 {
				t.Fatalf("%d elicitations, %d permission requests", len(elicited), asked)
			}
			var p struct {
				SessionID, ToolCallID, Mode, Message string
				RequestedSchema                      struct {
					Properties struct{ Answer struct{ Enum []string } }
					Required   []string
				}
			}
			json.Unmarshal(elicited[0], &p)
			if p.ToolCallID != "q1" || p.Mode != "form" || p.Message != "Which database?" || strings.Join(p.RequestedSchema.Properties.Answer.Enum, ",") != "Postgres,SQLite" || strings.Join(p.RequestedSchema.Required, ",") != "answer" {
				t.Errorf("elicitation params %s", elicited[0])
			}
			ups := e.toolUpdates("q1")
			last := ups[len(ups)-1]
			if !strings.Contains(string(last.Raw), `"card":"question"`) || last.Status != "completed" {
				t.Errorf("result card %s", last.Raw)
			}
		})
	}
	t.Run("a free answer, in plan mode", func(t *testing.T) {
		got, _, e := askResult(t, elicitCaps, "plan", `{"question":"What should the table be called?"}`, func(_ *editor, p json.RawMessage) (any, *rpcError) {
			return map[string]any{"action": "accept", "content": map[string]any{"answer": "users_v2"}}, nil
		}, nil)
		if got != "The user answered: users_v2" {
			t.Errorf("result %q", got)
		}
		if strings.Contains(string(e.elicited[0]), "enum") {
			t.Errorf("a free question has an enum: %s", e.elicited[0])
		}
	})
	t.Run("a cancelled turn", func(t *testing.T) {
		got, stop, _ := askResult(t, elicitCaps, "", dbQuestion, func(e *editor, _ json.RawMessage) (any, *rpcError) {
			e.mu.Lock()
			s := e.nextSession
			e.mu.Unlock()
			e.notify("session/cancel", map[string]any{"sessionId": s}) // arrives before the answer
			return map[string]any{"action": "accept", "content": map[string]any{"answer": "SQLite"}}, nil
		}, nil)
		if stop != "cancelled" || strings.Contains(got, "SQLite") {
			t.Errorf("stop %s, result %q", stop, got)
		}
	})
}

// TestAskUser_PermissionFallback: without elicitation, a question with
// choices is a permission request whose options are the choices (and a
// way to decline); a free question cannot be asked, and the model reads
// why.
func TestAskUser_PermissionFallback(t *testing.T) {
	pick := func(id string) func(json.RawMessage) any {
		return func(json.RawMessage) any {
			return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": id}}
		}
	}
	for _, tc := range []struct{ name, option, want string }{
		{"the second choice", "choice_1", "The user answered: SQLite"},
		{"the first choice", "choice_0", "The user answered: Postgres"},
		{"decline", "decline", "The user declined to answer"},
		{"an unknown option", "allow_once", `The question could not be asked: the editor selected an unknown option "allow_once"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, e := askResult(t, nil, "plan", dbQuestion, nil, pick(tc.option))
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("result %q, want %q", got, tc.want)
			}
			e.mu.Lock()
			asked := e.asked
			e.mu.Unlock()
			if len(asked) != 1 {
				t.Fatalf("%d permission requests", len(asked))
			}
			var p struct {
				ToolCall struct{ ToolCallID string }
				Options  []struct{ OptionID, Name, Kind string }
			}
			json.Unmarshal(asked[0], &p)
			var opts []string
			for _, o := range p.Options {
				opts = append(opts, o.OptionID+"="+o.Name+"/"+o.Kind)
			}
			if p.ToolCall.ToolCallID != "q1" || strings.Join(opts, ",") != "choice_0=Postgres/allow_once,choice_1=SQLite/allow_once,decline=Don't answer/reject_once" {
				t.Errorf("permission request %s", asked[0])
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		got, _, _ := askResult(t, nil, "", dbQuestion, nil, func(json.RawMessage) any {
			return map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}
		})
		if !strings.HasPrefix(got, "The question was cancelled") {
			t.Errorf("result %q", got)
		}
	})
	t.Run("a free question", func(t *testing.T) {
		got, _, e := askResult(t, nil, "", `{"question":"What should the table be called?"}`, nil, nil)
		if !strings.Contains(got, "cannot take a free-text answer") || len(e.asked) != 0 || len(e.elicited) != 0 {
			t.Errorf("result %q, %d asked, %d elicited", got, len(e.asked), len(e.elicited))
		}
	})
}
