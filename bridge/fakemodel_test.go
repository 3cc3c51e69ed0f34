package bridge_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeCall is one scripted tool call.
type fakeCall struct{ id, name, args string }

// fakeTurn is one scripted model response.
type fakeTurn struct {
	reasoning string
	text      string
	calls     []fakeCall
	finish    string // default "stop" or "tool_calls"
	status    int    // non-zero: answer with this HTTP error status
	hang      bool   // stream the text, then wait for the client to go away
}

// fakeModel is a loopback fake of the OpenAI chat completions streaming API.
// Each request takes the next scripted turn (an empty script answers "done")
// and is recorded for assertions.
type fakeModel struct {
	srv      *httptest.Server
	mu       sync.Mutex
	turns    []fakeTurn
	requests []chatRequest
	always   *fakeTurn // answer every request with this turn
	// respond, when set, computes each request's turn.
	respond func(chatRequest) fakeTurn
}

type chatRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func newFakeModel(t testing.TB, turns ...fakeTurn) *fakeModel {
	f := &fakeModel{turns: turns}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) add(turns ...fakeTurn) {
	f.mu.Lock()
	f.turns = append(f.turns, turns...)
	f.mu.Unlock()
}

func (f *fakeModel) recorded() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatRequest(nil), f.requests...)
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	_ = json.Unmarshal(body, &req)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	turn := fakeTurn{text: "done"}
	switch {
	case f.respond != nil:
		turn = f.respond(req)
	case f.always != nil:
		turn = *f.always
	case len(f.turns) > 0:
		turn, f.turns = f.turns[0], f.turns[1:]
	}
	f.mu.Unlock()
	if turn.status != 0 {
		http.Error(w, `{"error":{"message":"scripted failure","type":"server_error"}}`, turn.status)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		flusher.Flush()
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if turn.reasoning != "" {
		send(chunk(map[string]any{"role": "assistant", "reasoning_content": turn.reasoning}, nil))
	}
	for i := 0; i < len(turn.text); i += 7 {
		send(chunk(map[string]any{"content": turn.text[i:min(len(turn.text), i+7)]}, nil))
	}
	if turn.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	}
	for i, c := range turn.calls {
		half := len(c.args) / 2
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": c.args[:half]}}}}, nil))
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.args[half:]}}}}, nil))
	}
	finish := turn.finish
	if finish == "" {
		finish = "stop"
		if len(turn.calls) > 0 {
			finish = "tool_calls"
		}
	}
	send(chunk(map[string]any{}, finish))
	send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "fake", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	flusher.Flush()
}
