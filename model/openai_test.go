package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// sse writes one SSE stream of raw chunk objects.
func sse(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func chunk(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = `"` + finish + `"`
	}
	return `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

func TestOpenAI_Streaming(t *testing.T) {
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("auth header %q", r.Header.Get("Authorization"))
		}
		sse(w,
			chunk(`{"role":"assistant","reasoning_content":"think "}`, ""),
			chunk(`{"reasoning_content":"hard"}`, ""),
			chunk(`{"content":"Hel"}`, ""),
			chunk(`{"content":"lo"}`, ""),
			chunk(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read","arguments":"{\"file"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"_path\":\"x\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"grep","arguments":"{}"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`,
		)
	}))
	defer srv.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "k", Model: "deepseek-chat"})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	resp, err := c.Complete(context.Background(), Request{
		Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "p", Name: "read", Arguments: "{}"}}}, {Role: "tool", ToolCallID: "p", Content: "r"}},
		Tools: []registry.ToolSchema{{Name: "read", Description: "d", Parameters: jsonv.MustParse(`{"type":"object","properties":{}}`)}},
	}, Handler{
		OnText:      func(s string) { events = append(events, "text:"+s) },
		OnReasoning: func(s string) { events = append(events, "think:"+s) },
		OnToolCall:  func(tc ToolCall) { events = append(events, "call:"+tc.ID+":"+tc.Name+":"+tc.Arguments) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "think:think |think:hard|text:Hel|text:lo|call:a:read:{\"file_path\":\"x\"}|call:b:grep:{}"
	if got := strings.Join(events, "|"); got != want {
		t.Errorf("events\n got  %s\n want %s", got, want)
	}
	if resp.Text != "Hello" || resp.Reasoning != "think hard" || len(resp.ToolCalls) != 2 || resp.FinishReason != "tool_calls" || resp.Usage.TotalTokens != 7 {
		t.Errorf("response %+v", resp)
	}
	msgs, _ := json.Marshal(body["messages"])
	for _, s := range []string{`"tool_call_id":"p"`, `"role":"system"`, `"id":"p","type":"function"`} {
		if !strings.Contains(string(msgs), s) {
			t.Errorf("request messages lack %s: %s", s, msgs)
		}
	}
	if tools, _ := json.Marshal(body["tools"]); !strings.Contains(string(tools), `"name":"read"`) || body["stream"] != true {
		t.Errorf("tools %s stream %v", tools, body["stream"])
	}
}

func TestOpenAI_RetriesAndFailures(t *testing.T) {
	t.Run("retries 5xx then succeeds", func(t *testing.T) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) < 3 {
				http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
				return
			}
			sse(w, chunk(`{"content":"ok"}`, "stop"))
		}))
		defer srv.Close()
		c, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "k", Model: "m"})
		resp, err := c.Complete(context.Background(), Request{}, Handler{})
		if err != nil || resp.Text != "ok" || n.Load() != 3 {
			t.Errorf("resp %+v err %v after %d requests", resp, err, n.Load())
		}
	})
	t.Run("4xx fails without retrying", func(t *testing.T) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		}))
		defer srv.Close()
		c, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "k", Model: "m"})
		if _, err := c.Complete(context.Background(), Request{}, Handler{}); err == nil || n.Load() != 1 {
			t.Errorf("err %v after %d requests", err, n.Load())
		}
	})
	t.Run("cancellation stops the stream", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sse(w, chunk(`{"content":"partial"}`, ""))
			<-r.Context().Done()
		}))
		defer srv.Close()
		c, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "k", Model: "m"})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(100 * time.Millisecond); cancel() }()
		start := time.Now()
		_, err := c.Complete(ctx, Request{}, Handler{})
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Errorf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("no key", func(t *testing.T) {
		if _, err := NewOpenAI(OpenAIConfig{}); !errors.Is(err, ErrNoAPIKey) {
			t.Errorf("err %v", err)
		}
	})
}
