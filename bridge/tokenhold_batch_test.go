package bridge_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/internal/rpctest"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// TestServer_TokensWaitForTheBatch: a read's syntax tokens wait for the
// other calls of its batch (they need the CPU more), then come before the
// prompt's answer, and before anything of the model's next answer (its
// text "ok", which the scripted model gives at once): updates come in an
// order a plugin's test can rely on. Two reads run one after the other
// (MaxParallel 1), the second of a 2,000-line file; the first's tokens
// come after the second's result. The tokenizer is the real one (Go needs
// no helper).
func TestServer_TokensWaitForTheBatch(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Join(strings.Split(string(src), "\n")[:2000], "\n")
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte(big), 0o644)
	script, err := model.ParseScript("two reads", []byte(
		`{"tool_calls":[{"id":"a","name":"read","arguments":{"file_path":"a.go"}},{"id":"b","name":"read","arguments":{"file_path":"b.go"}}]}`+"\n"+
			`{"text":"ok"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tok := highlight.New(highlight.Options{})
	defer tok.Close()
	srv := bridge.NewServer(bridge.Config{Model: script, Tokenizer: tok, TokenHold: time.Hour, MaxParallel: 1, StateDir: t.TempDir()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, inR, outW) }()
	var out syncBuffer
	rpc := rpctest.New(io.TeeReader(outR, &out), inW)
	rpc.Call(t, 1, "initialize", `{"protocolVersion":1,"clientCapabilities":{"_meta":{"dsh":{"version":1}}}}`)
	created := rpc.Call(t, 2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, dir))
	_, rest, _ := strings.Cut(created, `"sessionId":"`)
	sid, _, _ := strings.Cut(rest, `"`)
	if got := rpc.Call(t, 3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"read"}]}`, sid)); !strings.Contains(got, `"end_turn"`) {
		t.Fatalf("prompt: %s", got)
	}
	lines := strings.Split(out.String(), "\n")
	at := func(call string, marks ...string) int {
		for i, l := range lines {
			if !strings.Contains(l, `"toolCallId":"`+call+`"`) {
				continue
			}
			all := true
			for _, m := range marks {
				all = all && strings.Contains(l, m)
			}
			if all {
				return i
			}
		}
		return -1
	}
	aDone, aTokens, bDone, bTokens := at("a", `"status":"completed"`), at("a", `"tokens"`), at("b", `"status":"completed"`), at("b", `"tokens"`)
	switch {
	case aDone < 0 || bDone < 0 || aTokens < 0 || bTokens < 0:
		t.Fatalf("a completed at line %d, its tokens at %d; b completed at %d, its tokens at %d", aDone, aTokens, bDone, bTokens)
	case aDone > bDone:
		t.Fatalf("b completed before a: the calls did not run in order")
	case aTokens < bDone:
		t.Errorf("a's tokens (line %d) came before b completed (line %d): they did not wait for the batch", aTokens, bDone)
	}
	for i, l := range lines {
		if strings.Contains(l, `"agent_message_chunk"`) && (i < aTokens || i < bTokens) {
			t.Errorf("the next answer's text (line %d) came before the tokens (a's line %d, b's %d)", i, aTokens, bTokens)
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outW.Close()
}

// TestBridge_TokensWaitForACommand: the binary, with DSH_TOKEN_HOLD=1h: a
// read's tokens wait for a command of the same batch (one that sleeps a
// second), so they come after its result. Made at once instead, they
// would come about a second before it, whatever the load.
func TestBridge_TokensWaitForACommand(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	m := newFakeModel(t, fakeTurn{calls: []fakeCall{
		{"a", "read", args("file_path", "a.go")},
		{"c", "bash", args("command", "sleep 1", "description", "sleep a second")},
	}}, fakeTurn{text: "ok"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_TOKEN_HOLD=1h")
	e.initialize(cardCaps())
	h := &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
	if _, err := h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"}); err != nil {
		t.Fatal(err)
	}
	if stop := h.prompt(h.session, "read, then sleep"); stop != "end_turn" {
		t.Fatalf("stop %q", stop)
	}
	index := func(call string, match func(update) bool) int {
		for i, u := range h.decodedUpdates() {
			if u.ToolCallID == call && match(u) {
				return i
			}
		}
		return -1
	}
	aDone := index("a", func(u update) bool { return u.Status == "completed" })
	aTokens := index("a", func(u update) bool { return strings.Contains(string(u.Raw), `"tokens"`) })
	cDone := index("c", func(u update) bool { return u.Status == "completed" })
	switch {
	case aDone < 0 || aTokens < 0 || cDone < 0:
		t.Fatalf("a completed at %d, its tokens at %d; c ended at %d", aDone, aTokens, cDone)
	case aTokens < cDone:
		t.Errorf("the read's tokens (update %d) came before the command ended (%d): they did not wait for the batch", aTokens, cDone)
	}
}
