package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cardsOf returns, per tool call, its announcement and final update with
// the fields a person sees (title, kind, status, content).
func cardsOf(e *editor) map[string]string {
	out := map[string]string{}
	for _, u := range e.decodedUpdates() {
		if u.ToolCallID == "" {
			continue
		}
		var v struct {
			Title   string          `json:"title"`
			Kind    string          `json:"kind"`
			Status  string          `json:"status"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(u.Raw, &v)
		// Appended, not assigned: a duplicated card shows as a difference.
		if u.SessionUpdate == "tool_call" {
			out[u.ToolCallID+"/call"] += fmt.Sprintf("%s|%s|%s;", v.Title, v.Kind, v.Content)
		} else if v.Status == "completed" || v.Status == "failed" {
			out[u.ToolCallID+"/result"] += fmt.Sprintf("%s|%s;", v.Status, v.Content)
		}
	}
	return out
}

func TestDurable_RestartAndLoad(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	m := newFakeModel(t,
		fakeTurn{reasoning: "plan", text: "Editing.", calls: []fakeCall{{"e1", "edit", args("file_path", "a.txt", "old_string", "one", "new_string", "two")}}},
		fakeTurn{calls: []fakeCall{{"e2", "write", args("file_path", "b.txt", "content", "nope")}}},
		fakeTurn{calls: []fakeCall{{"b1", "bash", args("command", "echo ran", "description", "d")}}},
		fakeTurn{text: "Finished."})
	first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	first.onPermission = func(p json.RawMessage) any {
		opt := "allow_once"
		if strings.Contains(string(p), `"toolCallId":"e2"`) {
			opt = "reject_once"
		}
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": opt}}
	}
	first.initialize(nil)
	s := first.newSession(dir)
	first.call("session/set_mode", map[string]any{"sessionId": s, "modeId": "acceptEdits"})
	first.prompt(s, "edit, write, run")
	live := cardsOf(first)
	first.close()

	m.add(fakeTurn{text: "Continuing with the restored history."})
	second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	second.initialize(nil)
	res, rerr := second.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}})
	if rerr != nil {
		t.Fatalf("session/load: %+v", rerr)
	}
	if !strings.Contains(string(res), `"currentModeId":"acceptEdits"`) {
		t.Errorf("mode not restored: %s", res)
	}
	replayed := cardsOf(second)
	for k, v := range live {
		if k == "e1/call" {
			continue // live, a pending edit shows the file; replayed, its arguments (TestBridge_PendingDiffReplaysFromTheLog)
		}
		if replayed[k] != v {
			t.Errorf("%s differs after replay:\n live %s\n replay %s", k, v, replayed[k])
		}
	}
	for k, v := range replayed {
		if _, ok := live[k]; !ok {
			t.Errorf("the replay shows a card the live turn did not: %s %s", k, v)
		}
	}
	var kinds []string
	for _, u := range second.decodedUpdates() {
		if u.ToolCallID == "" && u.SessionUpdate != "notice" && u.SessionUpdate != "available_commands_update" { // every session start's
			kinds = append(kinds, u.SessionUpdate)
		}
	}
	// The fake thinks before every answer, as DeepSeek does by default;
	// the title first; the usage as the live session last showed it
	// comes last.
	if strings.Join(kinds, ",") != "session_info_update,user_message_chunk,agent_thought_chunk,agent_message_chunk,agent_thought_chunk,agent_thought_chunk,agent_thought_chunk,agent_message_chunk,usage_update" {
		t.Errorf("replayed messages %v", kinds)
	}
	second.prompt(s, "continue")
	reqs := m.recorded()
	last := reqs[len(reqs)-1]
	var roles []string
	for _, msg := range last.Messages {
		roles = append(roles, msg.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,tool,assistant,tool,assistant,user" {
		t.Errorf("restored history roles %s", got)
	}
	if _, err := second.call("session/load", map[string]any{"sessionId": "sess_unknown", "cwd": dir, "mcpServers": []any{}}); err == nil || err.Code != -32002 {
		t.Errorf("unknown session: %+v", err)
	}
}

func TestDurable_ListCloseAndTornLogs(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	other := t.TempDir()
	state := t.TempDir()
	m := newFakeModel(t)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	var ids []string
	for i := range 3 {
		s := e.newSession(dir)
		e.prompt(s, fmt.Sprintf("task number %d\nsecond line", i))
		ids = append(ids, s)
	}
	e.newSession(other)
	res, err := e.call("session/list", map[string]any{"cwd": dir})
	var list struct {
		Sessions []struct {
			SessionID, Cwd, Title string
		}
	}
	json.Unmarshal(res, &list)
	if err != nil || len(list.Sessions) != 3 || !strings.HasPrefix(list.Sessions[0].Title, "task number") || strings.Contains(list.Sessions[0].Title, "second") {
		t.Errorf("list %s %+v", res, err)
	}
	if _, err := e.call("session/close", map[string]any{"sessionId": ids[0]}); err != nil {
		t.Errorf("close: %+v", err)
	}
	if _, err := e.call("session/prompt", map[string]any{"sessionId": ids[0], "prompt": []any{}}); err == nil || err.Code != -32002 {
		t.Errorf("prompt after close: %+v", err)
	}
	// A log torn mid-line still loads.
	f, _ := os.OpenFile(filepath.Join(state, ids[1]+".jsonl"), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(`{"kind":"user","text":"cut of`)
	f.Close()
	e2 := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e2.initialize(nil)
	if _, err := e2.call("session/load", map[string]any{"sessionId": ids[1], "cwd": dir, "mcpServers": []any{}}); err != nil {
		t.Errorf("torn log: %+v", err)
	}
	if stop := e2.prompt(ids[1], "again"); stop != "end_turn" {
		t.Errorf("prompt after loading a torn log: %s", stop)
	}
}

// TestDurable_KillDuringTurn kills the process with SIGKILL in the middle
// of a turn, 20 times: each time the session loads, with every earlier turn
// and at most the interrupted one lost.
func TestDurable_KillDuringTurn(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	m := newFakeModel(t)
	session := ""
	for round := range 20 {
		m.add(fakeTurn{text: fmt.Sprintf("answer %d", round)}, fakeTurn{text: "slow", hang: true})
		e := startBinary(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
		e.initialize(nil)
		if session == "" {
			session = e.newSession(dir)
		} else if _, err := e.call("session/load", map[string]any{"sessionId": session, "cwd": dir, "mcpServers": []any{}}); err != nil {
			t.Fatalf("round %d: load: %+v", round, err)
		}
		users := 0
		for _, u := range e.decodedUpdates() {
			if u.SessionUpdate == "user_message_chunk" {
				users++
			}
		}
		if users != round {
			logData, _ := os.ReadFile(filepath.Join(state, session+".jsonl"))
			t.Fatalf("round %d: %d completed turns replayed, want %d\n%s", round, users, round, logData)
		}
		e.prompt(session, fmt.Sprintf("complete turn %d", round))
		e.start("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": "interrupted"}}})
		time.Sleep(time.Duration(50+round*7) * time.Millisecond) // deliberate: a kill at a different point each round
		e.cmd.Process.Signal(syscall.SIGKILL)
	}
}

func TestDurable_Resume(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	m := newFakeModel(t, fakeTurn{text: "first answer"}, fakeTurn{text: "second answer"})
	first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	first.initialize(nil)
	s := first.newSession(dir)
	first.prompt(s, "first question")
	first.close()
	second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	second.initialize(nil)
	if _, err := second.call("session/resume", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}}); err != nil {
		t.Fatalf("resume: %+v", err)
	}
	titled := false
	for _, u := range second.decodedUpdates() {
		// the sandbox notice and the commands list of every session start,
		// and the session's title (metadata, not its conversation)
		titled = titled || (u.SessionUpdate == "session_info_update" && u.Title == "first question")
		if u.SessionUpdate != "notice" && u.SessionUpdate != "available_commands_update" && u.SessionUpdate != "session_info_update" {
			t.Errorf("resume replayed %s", u.Raw)
		}
	}
	if !titled {
		t.Error("resume did not give the session's title")
	}
	second.prompt(s, "second question")
	reqs := m.recorded()
	if msgs := reqs[len(reqs)-1].Messages; len(msgs) != 4 || fmt.Sprint(msgs[1].Content) != "first question" {
		t.Errorf("history after resume: %+v", msgs)
	}
}
