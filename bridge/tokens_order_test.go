package bridge_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/internal/rpctest"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// slowTokenizer gives every line one keyword span, after delay.
type slowTokenizer struct{ delay time.Duration }

func (s slowTokenizer) Tokens(ctx context.Context, path, lang string, lines []string) (highlight.TokenLines, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ts := make(highlight.TokenLines, len(lines))
	for i := range ts {
		ts[i] = []highlight.Span{{Start: 0, End: 1, Type: "Keyword"}}
	}
	return ts, nil
}

// TestServer_TokensComeBeforeTheNextAnswer: a read's syntax tokens, even
// slow ones, come before anything of the model's next answer (its text
// "ok", which the scripted model gives at once) and before the prompt's
// answer: updates come in an order a plugin's test can rely on.
func TestServer_TokensComeBeforeTheNextAnswer(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b\n"), 0o644)
	script, err := model.ParseScript("two reads", []byte(
		`{"tool_calls":[{"id":"a","name":"read","arguments":{"file_path":"a.go"}},{"id":"b","name":"read","arguments":{"file_path":"b.go"}}]}`+"\n"+
			`{"text":"ok"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := bridge.NewServer(bridge.Config{Model: script, Tokenizer: slowTokenizer{200 * time.Millisecond}, StateDir: t.TempDir()})
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
	tokens := map[string]int{}
	text, answer := -1, -1
	for i, l := range lines {
		switch {
		case strings.Contains(l, `"tokens"`):
			for _, call := range []string{"a", "b"} {
				if strings.Contains(l, `"toolCallId":"`+call+`"`) {
					tokens[call] = i
				}
			}
		case strings.Contains(l, `"agent_message_chunk"`) && text < 0:
			text = i
		case strings.Contains(l, `"stopReason"`):
			answer = i
		}
	}
	if len(tokens) != 2 || text < 0 || answer < 0 {
		t.Fatalf("tokens at lines %v, the next answer's text at %d, the prompt's answer at %d:\n%s", tokens, text, answer, out.String())
	}
	for call, at := range tokens {
		if at > text || at > answer {
			t.Errorf("%s's tokens (line %d) came after the next answer's text (line %d) or the prompt's answer (%d)", call, at, text, answer)
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outW.Close()
}
