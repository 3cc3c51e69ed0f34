package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// codeProgram reads two files in parallel and edits one, in one step.
const codeProgram = `const [a, b] = await Promise.all([tools.read({file_path: "a.txt"}), tools.read({file_path: "b.txt"})]);
await tools.edit({file_path: "a.txt", old_string: "one", new_string: "ONE"});
console.log("read", a.lines.length + b.lines.length, "lines");
return {edited: "a.txt"};`

// dshMeta is the part of _meta.dsh the Code Mode tests read.
type dshMeta struct {
	Meta struct {
		Dsh struct {
			ParentToolCallID string `json:"parentToolCallId"`
			Card             struct {
				Card string `json:"card"`
			} `json:"card"`
		} `json:"dsh"`
	} `json:"_meta"`
}

func metaOf(raw json.RawMessage) dshMeta {
	var m dshMeta
	json.Unmarshal(raw, &m)
	return m
}

// TestBridge_CodeMode: a session switched to the code tools mode offers the
// model only run_code; a direct call is refused with the route message; a
// program's sub-calls are cards of their own nested under the run_code
// card, an edit among them asks for permission; only run_code's curated
// result reaches the model; session/load shows the same nested cards.
func TestBridge_CodeMode(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("three\n"), 0o644)
	m := newFakeModel(t,
		fakeTurn{calls: []fakeCall{{"d1", "read", args("file_path", "a.txt")}}},
		fakeTurn{calls: []fakeCall{{"rc1", "run_code", args("code", codeProgram, "description", "Read two files and edit one")}}},
		fakeTurn{text: "Done."})
	first := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	var asked []string
	var mu sync.Mutex
	first.onPermission = func(p json.RawMessage) any {
		var req struct {
			ToolCall struct {
				ToolCallID string `json:"toolCallId"`
			} `json:"toolCall"`
		}
		json.Unmarshal(p, &req)
		mu.Lock()
		asked = append(asked, req.ToolCall.ToolCallID)
		mu.Unlock()
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
	}
	first.initialize(cardCaps()) // it draws cards: the program gets its tokens
	s := first.newSession(dir)
	res, rerr := first.call("session/set_config_option", map[string]any{"sessionId": s, "configId": "tools_mode", "value": "code"})
	if rerr != nil || !strings.Contains(string(res), `"id":"tools_mode"`) || !strings.Contains(string(res), `"currentValue":"code"`) {
		t.Fatalf("set tools_mode: %s %+v", res, rerr)
	}
	if stop := first.prompt(s, "read both files and fix a.txt"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}

	reqs := m.recorded()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Function.Name)
	}
	if !slices.Equal(offered, []string{"run_code"}) {
		t.Errorf("the model was offered %v", offered)
	}
	if got := (&harness{editor: first, model: m}).toolMessages(1)["d1"]; !strings.Contains(got, "only `run_code` is callable directly") {
		t.Errorf("the direct call: %q", got)
	}
	if got := strings.TrimSpace(first.contentOf(dir, "a.txt")); got != "ONE\ntwo" {
		t.Errorf("a.txt is %q", got)
	}
	if !slices.Equal(asked, []string{"rc1:code:3"}) {
		t.Errorf("permission asked for %v, want the edit sub-call", asked)
	}
	var roles []string
	for _, msg := range reqs[2].Messages {
		roles = append(roles, msg.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,tool" {
		t.Errorf("the model's history %s: sub-calls must not enter it", got)
	}
	if got := (&harness{editor: first, model: m}).toolMessages(2)["rc1"]; got != "read 3 lines\n{\n  \"edited\": \"a.txt\"\n}" {
		t.Errorf("run_code's result to the model: %q", got)
	}

	// The cards: run_code, then each sub-call nested under it.
	parents := map[string]string{}
	cards := map[string]string{}
	var order []string
	for _, u := range first.decodedUpdates() {
		if u.ToolCallID == "" {
			continue
		}
		mm := metaOf(u.Raw)
		if u.SessionUpdate == "tool_call" {
			order = append(order, u.ToolCallID)
			parents[u.ToolCallID] = mm.Meta.Dsh.ParentToolCallID
		}
		if u.Status == "completed" && mm.Meta.Dsh.Card.Card != "" {
			cards[u.ToolCallID] = mm.Meta.Dsh.Card.Card
		}
	}
	if want := []string{"d1", "rc1", "rc1:code:1", "rc1:code:2", "rc1:code:3"}; !slices.Equal(order, want) {
		t.Errorf("tool calls %v, want %v", order, want)
	}
	for _, id := range []string{"rc1:code:1", "rc1:code:2", "rc1:code:3"} {
		if parents[id] != "rc1" {
			t.Errorf("%s has parent %q", id, parents[id])
		}
	}
	if parents["rc1"] != "" || parents["d1"] != "" {
		t.Errorf("top-level calls have parents: %v", parents)
	}
	if cards["rc1:code:1"] != "read" || cards["rc1:code:3"] != "diff" {
		t.Errorf("sub-call cards %v", cards)
	}
	programTokens := 0 // the program's tokens follow its card, once
	for _, u := range first.decodedUpdates() {
		if u.SessionUpdate == "tool_call_update" && u.ToolCallID == "rc1" && strings.Contains(string(u.Raw), `"tokens"`) {
			programTokens++
			var c struct {
				Meta struct {
					Dsh struct {
						Card struct {
							Lang string `json:"lang"`
						} `json:"card"`
						Tokens [][]struct {
							Type string `json:"type"`
						} `json:"tokens"`
					} `json:"dsh"`
				} `json:"_meta"`
			}
			json.Unmarshal(u.Raw, &c)
			if c.Meta.Dsh.Card.Lang != "" || len(c.Meta.Dsh.Tokens) != strings.Count(codeProgram, "\n")+1 || len(c.Meta.Dsh.Tokens[0]) == 0 || !strings.HasPrefix(c.Meta.Dsh.Tokens[0][0].Type, "Keyword") {
				t.Errorf("the program is not highlighted: %s", u.Raw)
			}
		}
	}
	if programTokens != 1 {
		t.Errorf("%d updates with the program's tokens, want 1", programTokens)
	}
	live := cardsOf(first)
	if !strings.Contains(live["rc1/call"], "Read two files and edit one|execute|") {
		t.Errorf("the run_code card: %s", live["rc1/call"])
	}
	first.close()

	second := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	second.initialize(cardCaps()) // the same kind of client
	res, rerr = second.call("session/load", map[string]any{"sessionId": s, "cwd": dir, "mcpServers": []any{}})
	if rerr != nil || !strings.Contains(string(res), `"currentValue":"code"`) {
		t.Fatalf("session/load: %s %+v", res, rerr)
	}
	replayed := cardsOf(second)
	for k, v := range live {
		if k == "rc1:code:3/call" {
			continue // live, a pending edit shows the file; replayed, its arguments (TestBridge_PendingDiffReplaysFromTheLog)
		}
		if replayed[k] != v {
			t.Errorf("%s differs after replay:\n live   %s\n replay %s", k, v, replayed[k])
		}
	}
	var replayParents []string
	for _, u := range second.decodedUpdates() {
		if u.SessionUpdate == "tool_call" {
			replayParents = append(replayParents, u.ToolCallID+"<"+metaOf(u.Raw).Meta.Dsh.ParentToolCallID)
		}
	}
	if want := []string{"d1<", "rc1<", "rc1:code:1<rc1", "rc1:code:2<rc1", "rc1:code:3<rc1"}; !slices.Equal(replayParents, want) {
		t.Errorf("replayed nesting %v, want %v", replayParents, want)
	}
}

func (e *editor) contentOf(dir, rel string) string {
	b, _ := os.ReadFile(filepath.Join(dir, rel))
	return string(b)
}

// runOneProgram runs code through run_code in a Code Mode session of a
// bridge started with env, and returns what the model read of it.
func runOneProgram(t *testing.T, code string, env ...string) string {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t,
		fakeTurn{calls: []fakeCall{{"prog", "run_code", args("code", code, "description", "Run a program")}}},
		fakeTurn{text: "Done."})
	e := startEditor(t, append([]string{"DSH_BASE_URL=" + m.srv.URL, "DSH_TOOLS_MODE=code"}, env...)...)
	e.initialize(nil)
	if stop := e.prompt(e.newSession(dir), "run"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	return (&harness{editor: e, model: m}).toolMessages(1)["prog"]
}

// TestBridge_CodeModeLimits: DSH_CODE_TIMEOUT stops a program that never
// ends, and the model reads why; a cancelled turn stops a program and the
// command it is running.
func TestBridge_CodeModeLimits(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		got := runOneProgram(t, "console.log('spinning'); while (true) {}", "DSH_CODE_TIMEOUT=200ms")
		if !strings.Contains(got, "code run failed (timeout): wall-clock ceiling reached (200ms)") || !strings.Contains(got, "Captured output:\nspinning") {
			t.Errorf("the model read %q", got)
		}
	})
	t.Run("no runner installed", func(t *testing.T) {
		got := runOneProgram(t, "return 1", "DSH_CODE_RUNNER=off")
		if !strings.Contains(got, "code run failed (worker-exit): Code Mode's runner, dsh-code, is not installed") {
			t.Errorf("the model read %q", got)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		marker := "dsh-code-mode-cancel-" + filepath.Base(dir)
		m := newFakeModel(t,
			fakeTurn{calls: []fakeCall{{"prog", "run_code", args("code", "await tools.bash({command: 'sleep 30 # "+marker+"', description: 'wait'}); return 1", "description", "Wait a long time")}}})
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_TOOLS_MODE=code")
		e.onPermission = selectOption("allow_once")
		e.initialize(nil)
		s := e.newSession(dir)
		done := make(chan string, 1)
		go func() {
			ch := e.start("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "wait"}}})
			var r struct{ StopReason string }
			json.Unmarshal((<-ch).Result, &r)
			done <- r.StopReason
		}()
		e.waitFor(func() bool { return running(marker) })
		e.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": s}})
		if stop := <-done; stop != "cancelled" {
			t.Errorf("stop %q", stop)
		}
		e.waitFor(func() bool { return !running(marker) })
	})
}
