package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// placement is, per card id, the session its updates came on and the
// parent it nested under, with every update's session checked to be its
// announcement's.
func placement(t *testing.T, e *editor) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, u := range e.decodedUpdates() {
		if u.ToolCallID == "" {
			continue
		}
		if u.SessionUpdate == "tool_call" {
			out[u.ToolCallID] = u.SessionID + "|" + metaOf(u.Raw).Meta.Dsh.ParentToolCallID
			continue
		}
		if s, _, _ := strings.Cut(out[u.ToolCallID], "|"); s != u.SessionID {
			t.Errorf("an update of card %s came on %s, its card on %s", u.ToolCallID, u.SessionID, s)
		}
	}
	return out
}

// announcedFirst checks that no update carries a child's session id
// before the subagent_update on the parent that announces it, and returns
// the children announced, in order.
func announcedFirst(t *testing.T, e *editor, parent string) []string {
	t.Helper()
	var children []string
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "subagent_update" {
			var v struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(u.Raw, &v)
			if u.SessionID != parent {
				t.Errorf("a subagent_update came on %s, not the parent %s", u.SessionID, parent)
			}
			if !slices.Contains(children, v.SessionID) {
				children = append(children, v.SessionID)
			}
			continue
		}
		if u.SessionID != parent && !slices.Contains(children, u.SessionID) {
			t.Errorf("a %s on %s before any subagent_update announced it", u.SessionUpdate, u.SessionID)
		}
	}
	return children
}

// childText is the agent_message_chunk text sent on session id.
func childText(e *editor, id string) string {
	var b strings.Builder
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "agent_message_chunk" && u.SessionID == id {
			var c struct{ Text string }
			json.Unmarshal(u.Content, &c)
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// TestBridge_TaskChildSessions: a client that advertises subagents gets
// the child as a session of its own — its cards, their updates, its
// permission request and its answer carry the child's sessionId, after
// the subagent_update that announces it, not nested under the task; the
// task card and its progress stay on the parent. A client without the
// capability gets every card on the parent, nested. session/load replays
// each the same way. Every update is schema-valid.
func TestBridge_TaskChildSessions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		subagents bool
	}{
		{"subagents client", true},
		{"client without subagents", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			state := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n// TODO: fix\n"), 0o644)
			m := newFakeModel(t)
			m.respond = script{
				"fix a.go": {
					{calls: []fakeCall{{"t1", "task", args("description", "Fix the TODO", "prompt", "fix the TODO")}}},
					{text: "Parent done."},
				},
				"fix the TODO": {
					{calls: []fakeCall{{"c1", "read", args("file_path", "a.go")}, {"c2", "edit", args("file_path", "a.go", "old_string", "fix", "new_string", "done")}}},
					{text: "Fixed it."},
				},
			}.respond(map[string]int{})
			caps := cardCaps()
			if tc.subagents {
				caps["subagents"] = map[string]any{}
			}
			first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
			first.initialize(caps)
			s := first.newSession(dir)
			if stop := first.prompt(s, "fix a.go"); stop != "end_turn" {
				t.Fatalf("stop %q", stop)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); !strings.Contains(string(b), "TODO: done") {
				t.Fatalf("the child's approved edit did not land: %q", b)
			}
			checkUpdates(t, first)
			children := announcedFirst(t, first, s)
			child := s // where the child's traffic goes
			if tc.subagents {
				if len(children) != 1 {
					t.Fatalf("children announced %v, want one", children)
				}
				child = children[0]
			} else if len(children) != 0 {
				t.Fatalf("subagent_update sent to a client without subagents: %v", children)
			}
			nest := map[bool]string{true: "", false: "t1"}[tc.subagents]
			want := map[string]string{"t1": s + "|", "t1:task:1": child + "|" + nest, "t1:task:2": child + "|" + nest}
			live := placement(t, first)
			for id, w := range want {
				if live[id] != w {
					t.Errorf("card %s on session|parent %q, want %q", id, live[id], w)
				}
			}
			progress := 0
			for _, u := range first.toolUpdates("t1") {
				if u.Status == "in_progress" && u.SessionID == s {
					progress++
				}
			}
			if progress == 0 {
				t.Error("no task progress on the parent session")
			}
			first.mu.Lock()
			asked := slices.Clone(first.asked)
			first.mu.Unlock()
			if len(asked) != 1 {
				t.Fatalf("%d permission requests, want 1 (the child's edit)", len(asked))
			}
			var p struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					ToolCallID string `json:"toolCallId"`
				} `json:"toolCall"`
			}
			json.Unmarshal(asked[0], &p)
			if p.SessionID != child || p.ToolCall.ToolCallID != "t1:task:2" {
				t.Errorf("the child's permission request came on %s for %s, want %s for t1:task:2", p.SessionID, p.ToolCall.ToolCallID, child)
			}
			if err := validate("RequestPermissionRequest", asked[0]); err != nil {
				t.Errorf("the permission request: %v", err)
			}
			wantAnswer := map[bool]string{true: "Fixed it.", false: ""}[tc.subagents]
			if tc.subagents && childText(first, child) != wantAnswer {
				t.Errorf("the child's answer on its session: %q, want %q", childText(first, child), wantAnswer)
			}
			if got := childText(first, s); got != "Parent done." {
				t.Errorf("the parent's text %q: the child's answer leaked onto it?", got)
			}
			liveCards := cardsOf(first)
			first.close()

			second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
			second.initialize(caps)
			if _, err := second.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); err != nil {
				t.Fatalf("session/load: %+v", err)
			}
			checkUpdates(t, second)
			if got := announcedFirst(t, second, s); !slices.Equal(got, children) {
				t.Errorf("replay announced children %v, live %v", got, children)
			}
			replayed := placement(t, second)
			for id, w := range want {
				if replayed[id] != w {
					t.Errorf("replayed card %s on session|parent %q, want %q", id, replayed[id], w)
				}
			}
			if tc.subagents && childText(second, child) != wantAnswer {
				t.Errorf("the replayed child's answer: %q, want %q", childText(second, child), wantAnswer)
			}
			again := cardsOf(second)
			for _, k := range []string{"t1:task:1/result", "t1:task:2/result", "t1/result"} {
				if again[k] != liveCards[k] {
					t.Errorf("%s differs after replay:\n live   %s\n replay %s", k, liveCards[k], again[k])
				}
			}
		})
	}
}
