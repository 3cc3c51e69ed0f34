package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/internal/rpctest"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// heldAnswer is a model whose first answer is complete (its tool calls
// announced, the finish reason and usage read, as after [DONE]) but is
// handed back only once the turn has been cancelled: the cancel lands
// between the model's answer and the start of its tools. Later requests
// answer "done".
type heldAnswer struct {
	calls     []model.ToolCall
	announced chan struct{}
	n         int
}

func (m *heldAnswer) Complete(ctx context.Context, req model.Request, h model.Handler) (model.Response, error) {
	if model.IsTitleRequest(req) { // a title takes no turn of the script
		return model.Response{Text: "Held answer", FinishReason: "stop"}, nil
	}
	m.n++
	if m.n > 1 {
		return model.Response{Text: "done", FinishReason: "stop", Usage: model.Usage{PromptTokens: 10, CompletionTokens: 1}}, nil
	}
	for _, tc := range m.calls {
		h.OnToolCall(tc)
	}
	close(m.announced)
	<-ctx.Done()
	return model.Response{ToolCalls: m.calls, FinishReason: "tool_calls", Usage: model.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
}

// TestServer_CancelAfterTheAnswer: a cancel that lands after the model's
// answer with tool calls is complete, but before its tools start, ends
// the turn as cancelled with no card left pending, and no tool runs; the
// answer's usage, paid for, is still accounted.
func TestServer_CancelAfterTheAnswer(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := &heldAnswer{announced: make(chan struct{}), calls: []model.ToolCall{
		{ID: "w", Name: "write", Arguments: `{"file_path":"new.txt","content":"x\n"}`},
		{ID: "r", Name: "read", Arguments: `{"file_path":"a.txt"}`},
	}}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	srv := bridge.NewServer(bridge.Config{Model: m, StateDir: t.TempDir()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, inR, outW)
	var out syncBuffer
	rpc := rpctest.New(io.TeeReader(outR, &out), inW)
	rpc.Call(t, 1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	created := rpc.Call(t, 2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, dir))
	_, rest, _ := strings.Cut(created, `"sessionId":"`)
	sid, _, _ := strings.Cut(rest, `"`)
	// bypassPermissions: nothing would stop the write but the cancel.
	rpc.Call(t, 3, "session/set_mode", fmt.Sprintf(`{"sessionId":%q,"modeId":"bypassPermissions"}`, sid))

	answer := make(chan string, 1)
	go func() {
		answer <- rpc.Call(t, 4, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}`, sid))
	}()
	select {
	case <-m.announced:
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never asked")
	}
	fmt.Fprintf(inW, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":%q}}`+"\n", sid)
	var got string
	select {
	case got = <-answer:
	case <-time.After(30 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	if !strings.Contains(got, `"stopReason":"cancelled"`) {
		t.Errorf("got answer %s, want stopReason cancelled", got)
	}
	// Each card's last status is final.
	last := map[string]string{}
	var used []int64
	for _, l := range strings.Split(out.String(), "\n") {
		var msg struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					ToolCallID    string `json:"toolCallId"`
					Status        string `json:"status"`
					Used          int64  `json:"used"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(l), &msg) != nil {
			continue
		}
		if u := msg.Params.Update; u.SessionUpdate == "usage_update" {
			used = append(used, u.Used)
		}
		if u := msg.Params.Update; u.ToolCallID != "" && u.Status != "" {
			last[u.ToolCallID] = u.Status
		}
	}
	for _, tc := range m.calls {
		if st := last[tc.ID]; st != "failed" && st != "cancelled" {
			t.Errorf("card %s: got last status %q, want failed or cancelled", tc.ID, st)
		}
	}
	if len(used) != 1 || used[0] != 10 {
		t.Errorf("got usage updates of %v prompt tokens, want [10]", used)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("the write ran after the cancel")
	}
}
