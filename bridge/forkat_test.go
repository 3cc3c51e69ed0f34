package bridge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// firstAgentMessageID is the messageId of the first agent_message_chunk.
func firstAgentMessageID(e *editor) string {
	for _, u := range e.decodedUpdates() {
		var v struct {
			MessageID string `json:"messageId"`
		}
		if u.SessionUpdate == "agent_message_chunk" && json.Unmarshal(u.Raw, &v) == nil {
			return v.MessageID
		}
	}
	return ""
}

// TestFork_AtAMessage: session/fork with a messageId (the draft RFD's,
// inclusive) forks the history up to and including that message: at a
// user message, the fork's first request is the parent's request that
// answered it, byte for byte, with the fork's prompt after; at an
// assistant message, its calls' results come with it. The workspace is
// not changed by a fork (it is of history): the parent's later edit
// stays. An unknown message id is invalid params, naming the id.
func TestFork_AtAMessage(t *testing.T) {
	state := t.TempDir()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	m := newFakeModel(t,
		fakeTurn{text: "Reading.", calls: []fakeCall{{"r1", "read", args("file_path", "a.txt")}}},
		fakeTurn{text: "It says alpha."},
		fakeTurn{calls: []fakeCall{{"e1", "edit", args("file_path", "a.txt", "old_string", "alpha", "new_string", "beta")}}},
		fakeTurn{text: "Edited."})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	parent := e.newSession(dir)
	e.call("session/set_mode", map[string]any{"sessionId": parent, "modeId": "acceptEdits"})
	prompt := func(s, id, text string) {
		t.Helper()
		p := map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": text}}}
		if id != "" {
			p["messageId"] = id
		}
		if _, rerr := e.call("session/prompt", p); rerr != nil {
			t.Fatalf("session/prompt: %+v", rerr)
		}
	}
	prompt(parent, "u1", "first question")
	prompt(parent, "u2", "second question")
	bodies := m.rawBodies()
	answeredU2 := bodies[2]           // the parent's request that answered u2
	reading := firstAgentMessageID(e) // "Reading.", with the read call
	if reading == "" {
		t.Fatal("the first answer has no messageId")
	}
	parentLog, _ := os.ReadFile(filepath.Join(state, parent+".jsonl"))

	for _, tc := range []struct {
		name, at string
		// through is the text the fork's first request must share with
		// the parent's request, from its start to the end of this text.
		through string
		parent  []byte
		roles   string // the fork's first request's messages
	}{
		{"at a user message", "u2", "second question", answeredU2, "system,user,assistant,tool,assistant,user,user"},
		{"at an assistant message with calls", reading, `"role":"tool"`, bodies[1], "system,user,assistant,tool,user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, rerr := e.call("session/fork", map[string]any{"sessionId": parent, "messageId": tc.at, "cwd": dir, "mcpServers": []any{}})
			if rerr != nil {
				t.Fatalf("session/fork: %+v", rerr)
			}
			var fr struct {
				SessionID string `json:"sessionId"`
			}
			json.Unmarshal(res, &fr)
			if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "beta\n" {
				t.Errorf("the fork changed the workspace: a.txt is %q", b)
			}
			m.add(fakeTurn{text: "side answer"})
			n := len(m.rawBodies())
			prompt(fr.SessionID, "", "side question")
			first := m.rawBodies()[n]
			end := bytes.Index(tc.parent, []byte(tc.through))
			if end < 0 {
				t.Fatalf("the parent's request lacks %q", tc.through)
			}
			end += len(tc.through)
			if shared := sharedPrefix(first, tc.parent); shared < end {
				t.Errorf("the fork's first request shares %d bytes with the parent's, want at least %d:\nfork   %s\nparent %s", shared, end, first, tc.parent)
			}
			req := m.recorded()[n]
			var roles []string
			for _, msg := range req.Messages {
				roles = append(roles, msg.Role)
			}
			if got := strings.Join(roles, ","); got != tc.roles {
				t.Errorf("the fork's first request's messages %s, want %s", got, tc.roles)
			}
			if strings.Contains(string(first), "Edited.") || (tc.at == reading && strings.Contains(string(first), "second question")) {
				t.Errorf("the fork's history holds messages after the fork point: %s", first)
			}
			if now, _ := os.ReadFile(filepath.Join(state, parent+".jsonl")); !bytes.Equal(now, parentLog) {
				t.Error("the fork changed the parent's log")
			}
		})
	}

	t.Run("an unknown message id", func(t *testing.T) {
		_, rerr := e.call("session/fork", map[string]any{"sessionId": parent, "messageId": "msg_nowhere", "cwd": dir, "mcpServers": []any{}})
		if rerr == nil || rerr.Code != -32602 || !strings.Contains(rerr.Message, `"msg_nowhere"`) {
			t.Errorf("forking at an unknown message: %s", fmt.Sprint(rerr))
		}
	})
}
