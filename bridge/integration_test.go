package bridge_test

import (
	"encoding/json"
	"fmt"
	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// harness is a workspace, a fake model and a bridge process with a session.
type harness struct {
	*editor
	model   *fakeModel
	dir     string
	session string
}

func setup(t *testing.T, caps map[string]any, turns ...fakeTurn) *harness {
	t.Helper()
	return setupWith(t, startEditor, caps, turns...)
}

// setupWith is setup with the bridge start wants (startEditor, or
// startBinary for a test of the process itself).
func setupWith(t *testing.T, start func(testing.TB, ...string) *editor, caps map[string]any, turns ...fakeTurn) *harness {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := newFakeModel(t, turns...)
	e := start(t, "DSH_BASE_URL="+m.srv.URL)
	if caps == nil {
		caps = map[string]any{}
	}
	e.initialize(caps)
	return &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
}

func (h *harness) file(rel, content string) string {
	p := filepath.Join(h.dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) content(rel string) string {
	b, _ := os.ReadFile(filepath.Join(h.dir, rel))
	return string(b)
}

func args(kv ...any) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// toolMessages returns the tool results the model received in request i.
func (h *harness) toolMessages(i int) map[string]string {
	reqs := h.model.recorded()
	out := map[string]string{}
	if i >= len(reqs) {
		return out
	}
	for _, m := range reqs[i].Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = fmt.Sprint(m.Content)
		}
	}
	return out
}

func finalStatus(ups []update) string {
	if len(ups) == 0 {
		return ""
	}
	return ups[len(ups)-1].Status
}

func selectOption(id string) func(json.RawMessage) any {
	return func(json.RawMessage) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": id}}
	}
}

func TestBridge_EditApproved(t *testing.T) {
	h := setup(t, nil, fakeTurn{reasoning: "I should edit.", text: "Editing.", calls: []fakeCall{{"call_1", "edit", args("file_path", "a.txt", "old_string", "hello", "new_string", "hello, ACP")}}}, fakeTurn{text: "Done."})
	h.file("a.txt", "hello\n")
	if stop := h.prompt(h.session, "change the greeting"); stop != "end_turn" {
		t.Fatalf("stop reason %q", stop)
	}
	if got := h.content("a.txt"); got != "hello, ACP\n" {
		t.Errorf("file %q", got)
	}
	ups := h.toolUpdates("call_1")
	if len(ups) < 3 || ups[0].SessionUpdate != "tool_call" || ups[0].Status != "pending" || ups[0].Kind != "edit" || finalStatus(ups) != "completed" {
		t.Errorf("updates %+v", ups)
	}
	var perm struct {
		ToolCall struct {
			ToolCallID string            `json:"toolCallId"`
			Content    []json.RawMessage `json:"content"`
		} `json:"toolCall"`
		Options []struct{ Kind string } `json:"options"`
	}
	json.Unmarshal(h.asked[0], &perm)
	if perm.ToolCall.ToolCallID != "call_1" || len(perm.ToolCall.Content) == 0 || !strings.Contains(string(perm.ToolCall.Content[0]), `"type":"diff"`) || len(perm.Options) != 4 {
		t.Errorf("permission request %s", h.asked[0])
	}
	if got := h.toolMessages(1)["call_1"]; !strings.Contains(got, "has been updated successfully") {
		t.Errorf("the model got %q", got)
	}
	if !strings.Contains(h.agentText(), "Editing.") || !strings.Contains(h.agentText(), "Done.") {
		t.Errorf("agent text %q", h.agentText())
	}
	var thought bool
	for _, u := range h.decodedUpdates() {
		thought = thought || u.SessionUpdate == "agent_thought_chunk"
	}
	if !thought {
		t.Errorf("reasoning was not streamed as agent_thought_chunk")
	}
}

func TestBridge_EditRejected(t *testing.T) {
	h := setup(t, nil, fakeTurn{calls: []fakeCall{{"call_1", "edit", args("file_path", "a.txt", "old_string", "hello", "new_string", "bye")}}})
	h.onPermission = selectOption("reject_once")
	h.file("a.txt", "hello\n")
	h.prompt(h.session, "x")
	if h.content("a.txt") != "hello\n" {
		t.Errorf("a rejected edit changed the file")
	}
	if st := finalStatus(h.toolUpdates("call_1")); st != "failed" {
		t.Errorf("status %q", st)
	}
	if got := h.toolMessages(1)["call_1"]; got != `Error: the user rejected tool "edit"` {
		t.Errorf("the model got %q", got)
	}
}

func TestBridge_AlwaysAllowAsksOnce(t *testing.T) {
	edit := func(id, from, to string) fakeTurn {
		return fakeTurn{calls: []fakeCall{{id, "edit", args("file_path", "a.txt", "old_string", from, "new_string", to)}}}
	}
	h := setup(t, nil, edit("c1", "one", "two"), edit("c2", "two", "three"), fakeTurn{text: "ok"})
	h.onPermission = selectOption("allow_always")
	h.file("a.txt", "one\n")
	h.prompt(h.session, "x")
	if h.content("a.txt") != "three\n" || h.permissionCount() != 1 {
		t.Errorf("file %q after %d permission requests", h.content("a.txt"), h.permissionCount())
	}
}

func TestBridge_RejectAlwaysIsRemembered(t *testing.T) {
	touch := func(id string) fakeTurn {
		return fakeTurn{calls: []fakeCall{{id, "bash", args("command", "touch "+id+".txt", "description", "d")}}}
	}
	h := setup(t, nil, touch("c1"), touch("c2"), fakeTurn{text: "ok"})
	h.onPermission = selectOption("reject_always")
	h.prompt(h.session, "x")
	if h.permissionCount() != 1 {
		t.Errorf("asked %d times, want once", h.permissionCount())
	}
	for _, id := range []string{"c1", "c2"} {
		if st := finalStatus(h.toolUpdates(id)); st != "failed" {
			t.Errorf("%s: status %q, want failed", id, st)
		}
		if _, err := os.Stat(filepath.Join(h.dir, id+".txt")); err == nil {
			t.Errorf("%s ran although it was rejected", id)
		}
	}
	if got := h.toolMessages(1)["c1"]; got != `Error: the user rejected tool "bash"` {
		t.Errorf("first call: the model got %q", got)
	}
	if got := h.toolMessages(2)["c2"]; !strings.HasPrefix(got, "Error: you chose to always reject touch") {
		t.Errorf("second call: the model got %q", got)
	}
}

func TestBridge_ReadInsideRunsOutsideAsks(t *testing.T) {
	h := setup(t, nil, fakeTurn{calls: []fakeCall{
		{"in", "read", args("file_path", "a.txt")},
		{"out", "read", args("file_path", "/etc/hostname")},
	}})
	h.file("a.txt", "inside\n")
	h.onPermission = selectOption("reject_once")
	h.prompt(h.session, "x")
	if h.permissionCount() != 1 {
		t.Fatalf("asked %d times, want once (for the outside read)", h.permissionCount())
	}
	if !strings.Contains(string(h.asked[0]), `"toolCallId":"out"`) {
		t.Errorf("asked about %s", h.asked[0])
	}
	if finalStatus(h.toolUpdates("in")) != "completed" || finalStatus(h.toolUpdates("out")) != "failed" {
		t.Errorf("statuses in=%q out=%q", finalStatus(h.toolUpdates("in")), finalStatus(h.toolUpdates("out")))
	}
}

func TestBridge_InvalidArgumentsAndUnknownTools(t *testing.T) {
	h := setup(t, nil, fakeTurn{calls: []fakeCall{
		{"bad", "edit", args("file_path", 7)},
		{"ghost", "teleport", args()},
		{"broken", "read", `{"file_path":`},
	}})
	h.prompt(h.session, "x")
	if h.permissionCount() != 0 {
		t.Errorf("asked %d times about calls that cannot run", h.permissionCount())
	}
	msgs := h.toolMessages(1)
	for id, want := range map[string]string{
		"bad":    `Error: invalid arguments: missing required property "old_string"`,
		"ghost":  `Error: unknown tool "teleport"`,
		"broken": "Error: tool execution arguments must be losslessly JSON-serializable",
	} {
		if !strings.HasPrefix(msgs[id], want) || finalStatus(h.toolUpdates(id)) != "failed" {
			t.Errorf("%s: the model got %q, status %q", id, msgs[id], finalStatus(h.toolUpdates(id)))
		}
	}
}

func TestBridge_ParallelReadsInModelOrder(t *testing.T) {
	var calls []fakeCall
	for i := range 5 {
		calls = append(calls, fakeCall{fmt.Sprintf("r%d", i), "read", args("file_path", fmt.Sprintf("f%d.txt", i))})
	}
	h := setup(t, nil, fakeTurn{calls: calls})
	for i := range 5 {
		h.file(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("file %d\n", i))
	}
	h.prompt(h.session, "x")
	reqs := h.model.recorded()
	var order []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			order = append(order, m.ToolCallID)
		}
	}
	if strings.Join(order, ",") != "r0,r1,r2,r3,r4" {
		t.Errorf("tool results in order %v", order)
	}
	for i := range 5 {
		if got := h.toolMessages(1)[fmt.Sprintf("r%d", i)]; !strings.Contains(got, fmt.Sprintf("1: file %d", i)) {
			t.Errorf("r%d got %q", i, got)
		}
	}
	// The debug log says what the session holds once the turn is over:
	// the user's prompt, the assistant's calls, five results, the answer.
	// (stderr is copied by its own goroutine: it may trail the answer.)
	h.waitFor(func() bool { return strings.Contains(h.stderr.String(), `msg="turn ended"`) })
	i := strings.LastIndex(h.stderr.String(), `msg="turn ended"`)
	line, _, _ := strings.Cut(h.stderr.String()[max(i, 0):], "\n")
	if i < 0 || !strings.Contains(line, " stop=end_turn historyMessages=8 ") || strings.Contains(line, "historyBytes=0 ") || !strings.Contains(line, " heapLiveBytes=") {
		t.Errorf("turn ended line: %q", line)
	}
}

func TestBridge_BashWithoutEditorTerminal(t *testing.T) {
	h := setup(t, nil, fakeTurn{calls: []fakeCall{{"sh", "bash", args("command", "echo hi; exit 3", "description", "say hi")}}})
	h.prompt(h.session, "x")
	ups := h.toolUpdates("sh")
	if len(ups) == 0 || ups[0].Kind != "execute" || ups[0].Title != "echo hi; exit 3" {
		t.Fatalf("updates %+v", ups)
	}
	last := ups[len(ups)-1]
	if last.Status != "completed" || !strings.Contains(string(last.Content), "hi\\n[exit code: 3]") {
		t.Errorf("final update %s", last.Raw)
	}
	if got := h.toolMessages(1)["sh"]; got != "hi\n[exit code: 3]" {
		t.Errorf("the model got %q", got)
	}
}

func TestBridge_CancelDuringCommand(t *testing.T) {
	proctest.Sweep(t, "sleep\x007791")
	h := setup(t, nil, fakeTurn{calls: []fakeCall{{"long", "bash", args("command", "sleep 7791", "description", "wait")}}})
	ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
	h.waitFor(func() bool { return finalStatus(h.toolUpdates("long")) == "in_progress" && running("sleep\x007791") })
	h.notify("session/cancel", map[string]any{"sessionId": h.session})
	select {
	case m := <-ch:
		if !strings.Contains(string(m.Result), `"cancelled"`) {
			t.Errorf("prompt answered %s %+v", m.Result, m.Error)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	if st := finalStatus(h.toolUpdates("long")); st != "failed" {
		t.Errorf("the cancelled call ended %q", st)
	}
	if !processGone("sleep\x007791") {
		t.Errorf("the command is still running after cancel")
	}
}

func TestBridge_Modes(t *testing.T) {
	editTurn := fakeTurn{calls: []fakeCall{{"e", "edit", args("file_path", "a.txt", "old_string", "x", "new_string", "y")}}}
	bashTurn := fakeTurn{calls: []fakeCall{{"b", "bash", args("command", "ls", "description", "d")}}}
	for _, tc := range []struct {
		mode          string
		turn          fakeTurn
		wantAsked     int
		wantStatus    string
		wantFileAfter string
	}{
		{"default", editTurn, 1, "completed", "y\n"},
		{"acceptEdits", editTurn, 0, "completed", "y\n"},
		{"acceptEdits", bashTurn, 1, "completed", "x\n"},
		{"plan", editTurn, 0, "failed", "x\n"},
		{"plan", bashTurn, 0, "failed", "x\n"},
		{"bypassPermissions", editTurn, 0, "completed", "y\n"},
		{"bypassPermissions", bashTurn, 0, "completed", "x\n"},
	} {
		t.Run(tc.mode+"/"+tc.turn.calls[0].name, func(t *testing.T) {
			h := setup(t, nil, tc.turn)
			h.file("a.txt", "x\n")
			if _, err := h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": tc.mode}); err != nil {
				t.Fatalf("set_mode: %+v", err)
			}
			h.prompt(h.session, "x")
			id := tc.turn.calls[0].id
			if h.permissionCount() != tc.wantAsked || finalStatus(h.toolUpdates(id)) != tc.wantStatus || h.content("a.txt") != tc.wantFileAfter {
				t.Errorf("asked %d, status %q, file %q", h.permissionCount(), finalStatus(h.toolUpdates(id)), h.content("a.txt"))
			}
			if tc.mode == "plan" && !strings.HasPrefix(h.toolMessages(1)[id], "Error: plan mode is read-only") {
				t.Errorf("the model got %q", h.toolMessages(1)[id])
			}
		})
	}
	t.Run("set_config_option and errors", func(t *testing.T) {
		h := setup(t, nil)
		res, err := h.call("session/set_config_option", map[string]any{"sessionId": h.session, "configId": "mode", "value": "plan"})
		if err != nil || !strings.Contains(string(res), `"currentValue":"plan"`) {
			t.Errorf("set_config_option: %s %+v", res, err)
		}
		if _, err := h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "chaos"}); err == nil || err.Code != -32602 {
			t.Errorf("unknown mode: %+v", err)
		}
		if _, err := h.call("session/set_mode", map[string]any{"sessionId": "nope", "modeId": "plan"}); err == nil || err.Code != -32002 {
			t.Errorf("unknown session: %+v", err)
		}
	})
}

func TestBridge_MalformedInput(t *testing.T) {
	h := setup(t, nil)
	h.sendRaw("this is not json")
	h.sendRaw(`[{"jsonrpc":"2.0","id":99,"method":"initialize"}]`)
	if _, err := h.call("session/nonexistent", map[string]any{}); err == nil || err.Code != -32601 {
		t.Errorf("unknown method: %+v", err)
	}
	if _, err := h.call("session/prompt", map[string]any{"sessionId": 5}); err == nil || err.Code != -32602 {
		t.Errorf("bad params: %+v", err)
	}
	h.notify("_vendor/whatever", map[string]any{})
	h.prompt(h.session, "still alive?")
	var parse, invalid bool
	h.mu.Lock()
	for _, l := range h.raw {
		parse = parse || strings.Contains(l, `"code":-32700`)
		invalid = invalid || strings.Contains(l, `"code":-32600`)
	}
	h.mu.Unlock()
	if !parse || !invalid {
		t.Errorf("parse error answered %v, batch answered %v", parse, invalid)
	}
}

func TestBridge_ModelFailures(t *testing.T) {
	t.Run("500s end the turn with a message", func(t *testing.T) {
		h := setup(t, nil)
		h.model.always = &fakeTurn{status: 500}
		start := time.Now()
		if stop := h.prompt(h.session, "x"); stop != "end_turn" {
			t.Errorf("stop %q", stop)
		}
		if !strings.Contains(h.agentText(), "[model error] The model API is failing (HTTP 500)") || len(h.model.recorded()) != 4 {
			t.Errorf("text %q after %d requests (%v)", h.agentText(), len(h.model.recorded()), time.Since(start))
		}
	})
	t.Run("no API key", func(t *testing.T) {
		dir := t.TempDir()
		e := startEditor(t, "DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=")
		e.initialize(nil)
		if _, err := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{}}); err == nil || err.Code != -32000 || !strings.Contains(err.Message, "no API key") {
			t.Errorf("session/new: %+v, want auth_required (TestAuth_SignIn)", err)
		}
	})
}

func TestBridge_PromptEdgeCases(t *testing.T) {
	t.Run("4 MiB prompt", func(t *testing.T) {
		h := setupWith(t, startBinary, nil)
		big := strings.Repeat("0123456789abcdef", 4<<20/16)
		if stop := h.prompt(h.session, big); stop != "end_turn" {
			t.Fatalf("stop %q", stop)
		}
		reqs := h.model.recorded()
		if last := reqs[0].Messages[len(reqs[0].Messages)-1]; fmt.Sprint(last.Content) != big {
			t.Errorf("the prompt did not reach the model intact")
		}
	})
	t.Run("one prompt at a time", func(t *testing.T) {
		h := setupWith(t, startBinary, nil, fakeTurn{text: "slow", hang: true})
		first := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "a"}}})
		h.waitFor(func() bool { return strings.Contains(h.agentText(), "slow") }) // the first turn runs
		if _, err := h.call("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "b"}}}); err == nil || err.Code != -32600 {
			t.Errorf("second prompt: %+v", err)
		}
		h.notify("session/cancel", map[string]any{"sessionId": h.session})
		if m := within(t, first); !strings.Contains(string(m.Result), "cancelled") {
			t.Errorf("first prompt %s", m.Result)
		}
	})
	t.Run("resource links and embedded resources", func(t *testing.T) {
		h := setupWith(t, startBinary, nil)
		_, err := h.call("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{
			map[string]any{"type": "text", "text": "look at"},
			map[string]any{"type": "resource_link", "uri": "file:///a.go", "name": "a.go"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///b.go", "text": "package b"}},
		}})
		last := h.model.recorded()[0].Messages
		got := fmt.Sprint(last[len(last)-1].Content)
		if err != nil || !strings.Contains(got, `uri="file:///a.go"`) || !strings.Contains(got, "package b") {
			t.Errorf("prompt %q %+v", got, err)
		}
	})
}

func TestBridge_EditorFileSystem(t *testing.T) {
	h := setup(t, map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}},
		fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", "a.txt")}}},
		fakeTurn{calls: []fakeCall{{"w", "write", args("file_path", "a.txt", "content", "saved by the editor\n")}}})
	h.file("a.txt", "on disk\n")
	var writes []string
	// A buffer whose text reads like a JSON-RPC request: its answer is
	// still the read's.
	h.onRead = func(path string) (string, *rpcError) {
		return "unsaved buffer\n{\"method\": \"x\", \"id\": 1} é \\u00e9\n", nil
	}
	h.onWrite = func(path, content string) *rpcError {
		writes = append(writes, path+"="+content)
		return nil
	}
	h.prompt(h.session, "x")
	if got := h.toolMessages(1)["r"]; !strings.Contains(got, "1: unsaved buffer") || !strings.Contains(got, `2: {"method": "x", "id": 1} é \u00e9`) {
		t.Errorf("read did not go through the editor: %q", got)
	}
	if len(writes) != 1 || writes[0] != filepath.Join(h.dir, "a.txt")+"=saved by the editor\n" {
		t.Errorf("writes through the editor: %v", writes)
	}
	if h.content("a.txt") != "on disk\n" {
		t.Errorf("the bridge wrote the disk itself")
	}
}

func processGone(marker string) bool { return proctest.Gone(marker) }

func TestBridge_BashInEditorTerminal(t *testing.T) {
	caps := map[string]any{"terminal": true}
	t.Run("output, exit code and release", func(t *testing.T) {
		h := setupWith(t, startBinary, caps, fakeTurn{calls: []fakeCall{{"sh", "bash", args("command", "echo from-terminal; exit 2", "description", "d")}}})
		h.prompt(h.session, "x")
		if got := h.toolMessages(1)["sh"]; got != "from-terminal\n[exit code: 2]" {
			t.Errorf("the model got %q", got)
		}
		ups := h.toolUpdates("sh")
		var embedded bool
		for _, u := range ups {
			embedded = embedded || strings.Contains(string(u.Content), `"type":"terminal"`)
		}
		last := ups[len(ups)-1]
		if !embedded || last.Status != "completed" || !strings.Contains(string(last.Content), `"type":"terminal"`) {
			t.Errorf("the terminal was not embedded in the call: %+v", ups)
		}
		h.mu.Lock()
		calls := strings.Join(h.termCalls, ",")
		h.mu.Unlock()
		if !strings.HasPrefix(calls, "terminal/create") || !strings.HasSuffix(calls, "terminal/release") {
			t.Errorf("terminal calls %s", calls)
		}
	})
	t.Run("cancel kills and releases", func(t *testing.T) {
		proctest.Sweep(t, "sleep\x007792")
		h := setupWith(t, startBinary, caps, fakeTurn{calls: []fakeCall{{"long", "bash", args("command", "sleep 7792", "description", "d")}}})
		ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
		h.waitFor(func() bool { return h.terminalCalls() >= 2 }) // created and waiting
		h.notify("session/cancel", map[string]any{"sessionId": h.session})
		if m := within(t, ch); !strings.Contains(string(m.Result), "cancelled") {
			t.Errorf("prompt %s", m.Result)
		}
		h.mu.Lock()
		calls := strings.Join(h.termCalls, ",")
		h.mu.Unlock()
		if !strings.Contains(calls, "terminal/kill") || !strings.HasSuffix(calls, "terminal/release") {
			t.Errorf("terminal calls %s", calls)
		}
		if !processGone("sleep\x007792") {
			t.Errorf("the command survived the cancel")
		}
	})
}

// TestBridge_InitializeRightAtStart guards a startup race: the first message
// must be answered even when it is already waiting on stdin as the process
// starts (jsonrpc2 begins reading before its constructor returns).
func TestBridge_InitializeRightAtStart(t *testing.T) {
	for i := range 150 {
		cmd := exec.Command(binary)
		cmd.Env = append(os.Environ(), "DSH_API_KEY=x")
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), `"id":1`) {
			t.Fatalf("start %d: %v, stdout %q", i, err, out)
		}
	}
}

func TestBridge_ScriptedModel(t *testing.T) {
	for _, tc := range []struct {
		script string
		files  map[string]string
	}{
		{"edit-and-run.jsonl", map[string]string{"hello.txt": "hello world\n"}},
		{"search.jsonl", map[string]string{"main.go": "package main\n\n// TODO: tidy\n", "sub/util.go": "package sub\n", "notes.txt": "no match\n"}},
		{"errors.jsonl", nil},
	} {
		t.Run(tc.script, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			for name, content := range tc.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
			}
			path, _ := filepath.Abs(filepath.Join("..", "testdata", "scripts", tc.script))
			e := startEditor(t, "DSH_MODEL=script:"+path, "DSH_API_KEY=")
			e.initialize(nil)
			s := e.newSession(dir)
			e.call("session/set_mode", map[string]any{"sessionId": s, "modeId": "bypassPermissions"})
			if stop := e.prompt(s, "go"); stop != "end_turn" || strings.Contains(e.agentText(), "[model error") {
				t.Fatalf("stop %q, text %q", stop, e.agentText())
			}
		})
	}
}

func TestBridge_PermissionRules(t *testing.T) {
	rmCall := fakeTurn{calls: []fakeCall{{"rm", "bash", args("command", "rm -f a.txt", "description", "d")}}}
	lsCall := fakeTurn{calls: []fakeCall{{"ls", "bash", args("command", "ls", "description", "d")}}}
	settings := `{"permissions":{"allow":["bash(ls)"],"deny":["bash(rm:*)"]}}`
	t.Run("deny holds in bypassPermissions", func(t *testing.T) {
		h := setupWithSettings(t, settings, rmCall)
		h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
		h.prompt(h.session, "x")
		if h.content("a.txt") != "keep\n" || !strings.HasPrefix(h.toolMessages(1)["rm"], "Error: denied by the permission rule bash(rm:*)") {
			t.Errorf("file %q, the model got %q", h.content("a.txt"), h.toolMessages(1)["rm"])
		}
	})
	t.Run("allow rule runs without asking in a trusted workspace", func(t *testing.T) {
		h := setupWithSettings(t, settings, lsCall)
		h.prompt(h.session, "x")
		if h.permissionCount() != 0 || finalStatus(h.toolUpdates("ls")) != "completed" {
			t.Errorf("asked %d, status %q", h.permissionCount(), finalStatus(h.toolUpdates("ls")))
		}
	})
	t.Run("a malformed settings file is reported and ignored", func(t *testing.T) {
		h := setupWithSettings(t, `{"permissions":{"deny":["bash(rm:*)"],"allow":["oops("]}}`, rmCall)
		h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
		h.prompt(h.session, "x")
		h.waitForNotice("settings file was ignored")
		if finalStatus(h.toolUpdates("rm")) != "completed" {
			t.Errorf("rm status %q (the whole file must be ignored)", finalStatus(h.toolUpdates("rm")))
		}
	})
}

// setupWithSettings is setup with a workspace .dsh/settings.json written
// before the session starts, and a.txt holding "keep".
func setupWithSettings(t *testing.T, settings string, turns ...fakeTurn) *harness {
	t.Helper()
	return setupWorkspace(t, settings, `{"trustedWorkspaces":["WORKSPACE"]}`, nil, turns...)
}

// setupWorkspace is setup with workspace settings, user settings (where
// WORKSPACE stands for the workspace's path) and client capabilities.
func setupWorkspace(t *testing.T, settings, user string, caps map[string]any, turns ...fakeTurn) *harness {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if settings != "" {
		os.MkdirAll(filepath.Join(dir, ".dsh"), 0o755)
		os.WriteFile(filepath.Join(dir, ".dsh", "settings.json"), []byte(settings), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("keep\n"), 0o644)
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(strings.ReplaceAll(user, "WORKSPACE", dir)), 0o600)
	m := newFakeModel(t, turns...)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "XDG_CONFIG_HOME="+cfg)
	e.initialize(caps)
	return &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
}

func TestBridge_CancelRequestAndRequestCap(t *testing.T) {
	t.Run("$/cancel_request ends a prompt as cancelled", func(t *testing.T) {
		h := setup(t, nil, fakeTurn{text: "slow", hang: true})
		ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
		h.waitFor(func() bool { return strings.Contains(h.agentText(), "slow") }) // the turn runs
		h.mu.Lock()
		id := h.nextID
		h.mu.Unlock()
		h.notify("$/cancel_request", map[string]any{"requestId": id})
		select {
		case m := <-ch:
			if !strings.Contains(string(m.Result), `"cancelled"`) {
				t.Errorf("answered %s %+v", m.Result, m.Error)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no answer after $/cancel_request")
		}
	})
	t.Run("max_turn_requests", func(t *testing.T) {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644)
		m := newFakeModel(t)
		n := 0
		m.respond = func(chatRequest) fakeTurn {
			n++
			return fakeTurn{calls: []fakeCall{{fmt.Sprintf("r%d", n), "read", args("file_path", "a.txt")}}}
		}
		e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_MAX_TURN_REQUESTS=3")
		e.initialize(nil)
		s := e.newSession(dir)
		if stop := e.prompt(s, "loop forever"); stop != "max_turn_requests" || len(m.recorded()) != 3 {
			t.Errorf("stop %q after %d model requests", stop, len(m.recorded()))
		}
	})
}

// TestBridge_ExitsPromptlyWhenTheEditorGoes closes the bridge's stdin while
// a command runs in an editor terminal: the bridge must not wait for
// answers that can no longer come.
func TestBridge_ExitsPromptlyWhenTheEditorGoes(t *testing.T) {
	proctest.Sweep(t, "sleep\x007793")
	h := setup(t, map[string]any{"terminal": true}, fakeTurn{calls: []fakeCall{{"long", "bash", args("command", "sleep 7793", "description", "d")}}})
	h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
	h.waitFor(func() bool { return h.terminalCalls() >= 2 }) // created and waiting
	h.onTerminalMute()                                       // the editor stops answering, as a closed editor would
	start := time.Now()
	h.closeInput()
	select {
	case <-h.exited:
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the bridge took %v to exit", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the bridge did not exit after its input closed")
	}
	for _, term := range h.terms {
		if term.cmd.Process != nil {
			term.cmd.Process.Kill()
		}
	}
}

// within waits for one message on ch, failing the test after 20 s.
func within(t *testing.T, ch chan message) message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(20 * time.Second):
		t.Fatal("no answer within 20 s")
		return message{}
	}
}

// A client that renders _meta.dsh cards (it says so in initialize) gets a
// read's and a search's text once, in the card; its standard content is a
// one-line summary. Other clients get the text as content, as ACP shows it.
func TestBridge_CardClientsGetTheTextOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		caps  map[string]any
		cards bool
	}{
		{"plain client", nil, false},
		{"card client", cardCaps(), true},
		{"a later card version", map[string]any{"_meta": map[string]any{"dsh": map[string]any{"version": 2}}}, false},
		{"a malformed advertisement", map[string]any{"_meta": map[string]any{"dsh": true}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := setup(t, tc.caps, fakeTurn{calls: []fakeCall{
				{"r1", "read", args("file_path", "f.go")},
				{"g1", "grep", args("pattern", "distinctive")},
			}})
			h.file("f.go", "package f\n\n// a distinctive line\n")
			if stop := h.prompt(h.session, "read"); stop != "end_turn" {
				t.Fatalf("stop %q", stop)
			}
			for _, id := range []string{"r1", "g1"} {
				ups := h.toolUpdates(id)
				var done update
				for _, u := range ups {
					if u.Status == "completed" {
						done = u
					}
				}
				if done.Status == "" {
					t.Fatalf("%s did not complete: %+v", id, ups)
				}
				content := string(done.Content)
				if got := strings.Contains(content, "a distinctive line"); got == tc.cards {
					t.Errorf("%s: text in the content %v, want %v: %s", id, got, !tc.cards, content)
				}
				if !strings.Contains(string(done.Raw), `"card":{"card":`) || strings.Count(string(done.Raw), "a distinctive line") != 1+btoi(!tc.cards) {
					t.Errorf("%s: the card must carry the text (once more for a plain client): %s", id, done.Raw)
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
