package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rewindScript is a first turn that only talks, then a turn that edits a
// CRLF file and an executable one and runs a command that makes a third.
func rewindScript() []fakeTurn {
	return []fakeTurn{
		{text: "Hello."},
		{calls: []fakeCall{
			{"e1", "edit", args("file_path", "a.txt", "old_string", "two", "new_string", "TWO")},
			{"e2", "edit", args("file_path", "run.sh", "old_string", "hi", "new_string", "bye")},
			{"b1", "bash", args("command", "printf 'made\\n' > c.txt", "description", "make c")},
		}},
		{text: "Changed."},
	}
}

// rewindWorkspace writes the files the script changes.
func rewindWorkspace(h *harness) {
	h.file("a.txt", "one\r\ntwo\r\n")
	p := h.file("run.sh", "#!/bin/sh\necho hi\n")
	os.Chmod(p, 0o755)
}

// userTexts are the user messages of a recorded model request.
func userTexts(r chatRequest) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			out = append(out, strings.TrimSpace(strings.SplitN(toText(m.Content), "\n", 2)[0]))
		}
	}
	return out
}

func toText(c any) string {
	if s, ok := c.(string); ok {
		return s
	}
	b, _ := json.Marshal(c)
	return string(b)
}

func checkFile(t *testing.T, h *harness, rel, want string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(h.dir, rel)
	b, err := os.ReadFile(p)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q (%v), want %q", rel, b, err, want)
	}
	if fi, err := os.Stat(p); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm() != mode {
		t.Errorf("%s mode %v, want %v", rel, fi.Mode().Perm(), mode)
	}
}

func TestRewind_UndoRestoresFilesAndCutsHistory(t *testing.T) {
	state := t.TempDir()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t, rewindScript()...)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	h := &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
	rewindWorkspace(h)
	h.prompt(h.session, "say hello")
	h.prompt(h.session, "change things")
	checkFile(t, h, "a.txt", "one\r\nTWO\r\n", 0o644)
	checkFile(t, h, "c.txt", "made\n", 0o644&^umask())
	before := len(h.asked)

	h.prompt(h.session, "/undo")
	checkFile(t, h, "a.txt", "one\r\ntwo\r\n", 0o644)
	checkFile(t, h, "run.sh", "#!/bin/sh\necho hi\n", 0o755)
	if _, err := os.Lstat(filepath.Join(dir, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt, made by the undone command, is still there (%v)", err)
	}
	if len(h.asked) != before {
		t.Errorf("an undo without conflicts asked: %s", h.asked[len(h.asked)-1])
	}
	if txt := h.agentText(); !strings.Contains(txt, `Rewound to before "change things"`) || !strings.Contains(txt, "c.txt") {
		t.Errorf("the undo said %q", txt)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the workspace holds %d entries, want 2", len(entries))
	}

	m.add(fakeTurn{text: "After the undo."})
	h.prompt(h.session, "what now")
	reqs := m.recorded()
	if got := userTexts(reqs[len(reqs)-1]); strings.Join(got, "|") != "say hello|what now" {
		t.Errorf("the request after the undo holds the user messages %q", got)
	}
	for _, msg := range reqs[len(reqs)-1].Messages {
		if len(msg.ToolCalls) > 0 || msg.Role == "tool" {
			t.Errorf("the undone turn's calls reached the model: %+v", msg)
		}
	}
	e.close()

	second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	second.initialize(nil)
	if _, rerr := second.call("session/load", map[string]any{"sessionId": h.session, "cwd": dir, "mcpServers": []any{}}); rerr != nil {
		t.Fatalf("session/load: %+v", rerr)
	}
	var users []string
	for _, u := range second.decodedUpdates() {
		if u.SessionUpdate == "user_message_chunk" {
			var c struct{ Text string }
			json.Unmarshal(u.Content, &c)
			users = append(users, c.Text)
		}
		if u.ToolCallID != "" {
			t.Errorf("the load replayed a call of the undone turn: %s", u.Raw)
		}
	}
	if strings.Join(users, "|") != "say hello|what now" {
		t.Errorf("the load replayed the user messages %q", users)
	}
}

func umask() os.FileMode {
	if runtime.GOOS == "windows" {
		return 0
	}
	return 0o022
}

// conflictTurns is a turn that edits a.txt.
func conflictTurns() []fakeTurn {
	return []fakeTurn{
		{calls: []fakeCall{{"e1", "edit", args("file_path", "a.txt", "old_string", "one", "new_string", "agent")}}},
		{text: "Edited."},
	}
}

func TestRewind_FileChangedSinceIsAsked(t *testing.T) {
	tests := []struct {
		name, answer string
		want         string // a.txt after the undo
		cut          bool   // the history was cut
		said         string
	}{
		{"keep mine", "keep", "mine\n", true, "Kept as you changed them: a.txt"},
		{"take the checkpoint", "take", "one\n", true, "Restored: a.txt"},
		{"cancel", "cancel", "mine\n", false, "Rewind cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := setup(t, nil, conflictTurns()...)
			h.file("a.txt", "one\n")
			h.prompt(h.session, "edit a")
			if got := h.content("a.txt"); got != "agent\n" {
				t.Fatalf("a.txt %q after the turn", got)
			}
			h.file("a.txt", "mine\n") // the person changes it
			var asked json.RawMessage
			h.onPermission = func(p json.RawMessage) any {
				asked = p
				return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": tt.answer}}
			}
			h.prompt(h.session, "/undo")
			if got := h.content("a.txt"); got != tt.want {
				t.Errorf("a.txt %q, want %q", got, tt.want)
			}
			var req struct {
				ToolCall struct {
					Content []json.RawMessage `json:"content"`
				} `json:"toolCall"`
				Options []struct {
					OptionID string `json:"optionId"`
				} `json:"options"`
			}
			json.Unmarshal(asked, &req)
			if len(req.Options) != 3 || req.Options[0].OptionID != "keep" || req.Options[1].OptionID != "take" || req.Options[2].OptionID != "cancel" ||
				len(req.ToolCall.Content) == 0 || !strings.Contains(string(req.ToolCall.Content[0]), "a.txt") {
				t.Errorf("the conflict was asked as %s", asked)
			}
			if !strings.Contains(h.agentText(), tt.said) {
				t.Errorf("the undo said %q, want %q in it", h.agentText(), tt.said)
			}
			h.model.add(fakeTurn{text: "next"})
			h.prompt(h.session, "next")
			reqs := h.model.recorded()
			got := strings.Join(userTexts(reqs[len(reqs)-1]), "|")
			if want := map[bool]string{true: "next", false: "edit a|next"}[tt.cut]; got != want {
				t.Errorf("the next request holds %q, want %q", got, want)
			}
		})
	}
}

func TestRewind_ExtensionMethod(t *testing.T) {
	h := setup(t, nil, conflictTurns()...)
	raw, rerr := h.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if rerr != nil || !strings.Contains(string(raw), `"sessionRewind":{"method":"_dsh/session/rewind"}`) || !strings.Contains(string(raw), `"fork":{"atMessageId":true}`) {
		t.Fatalf("initialize %s %+v", raw, rerr)
	}
	h.file("a.txt", "one\n")
	res, rerr := h.call("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "edit a"}}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	var pr struct {
		Meta struct {
			Dsh struct {
				UserMessageID string `json:"userMessageId"`
			} `json:"dsh"`
		} `json:"_meta"`
	}
	json.Unmarshal(res, &pr)
	if pr.Meta.Dsh.UserMessageID == "" {
		t.Fatalf("no userMessageId in %s", res)
	}
	if _, rerr := h.call(rewindMethod, map[string]any{"sessionId": h.session, "toMessageId": "msg_none"}); rerr == nil || rerr.Code != -32602 {
		t.Errorf("an unknown message: %+v", rerr)
	}
	out, rerr := h.call(rewindMethod, map[string]any{"sessionId": h.session, "toMessageId": pr.Meta.Dsh.UserMessageID})
	if rerr != nil {
		t.Fatalf("%s: %+v", rewindMethod, rerr)
	}
	if !strings.Contains(string(out), "a.txt") || h.content("a.txt") != "one\n" {
		t.Errorf("rewind answered %s; a.txt %q", out, h.content("a.txt"))
	}
	var ids int
	for _, u := range h.decodedUpdates() {
		if u.SessionUpdate == "agent_message_chunk" && strings.Contains(string(u.Raw), `"messageId":"msg_`) {
			ids++
		}
	}
	if ids == 0 {
		t.Error("agent_message_chunk carries no messageId")
	}
}

const rewindMethod = "_dsh/session/rewind"

func TestRewind_RewindListsTurns(t *testing.T) {
	h := setup(t, nil, fakeTurn{text: "one"}, fakeTurn{text: "two"})
	h.prompt(h.session, "first question")
	h.prompt(h.session, "second question")
	h.prompt(h.session, "/rewind")
	if txt := h.agentText(); !strings.Contains(txt, "1. first question") || !strings.Contains(txt, "2. second question") {
		t.Errorf("/rewind listed %q", txt)
	}
	h.prompt(h.session, "/rewind 2")
	h.model.add(fakeTurn{text: "three"})
	h.prompt(h.session, "third")
	reqs := h.model.recorded()
	if got := strings.Join(userTexts(reqs[len(reqs)-1]), "|"); got != "first question|third" {
		t.Errorf("after /rewind 2 the request holds %q", got)
	}
}
