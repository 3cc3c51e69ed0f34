package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// sse writes one SSE stream of raw chunk objects, ended by [DONE].
func sse(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func delta(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = `"` + finish + `"`
	}
	return `{"id":"x","object":"chat.completion.chunk","created":1,"model":"deepseek-flash","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

func newChat(t *testing.T, h http.HandlerFunc, cfg ChatConfig) *Chat {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test-0123456789"
	}
	c, err := NewChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(context.Context, time.Duration) error { return nil }
	return c
}

var toolHistory = []Message{
	{Role: "user", Content: "u"},
	{Role: "assistant", ToolCalls: []ToolCall{{ID: "p", Name: "read", Arguments: "{}"}}},
	{Role: "tool", ToolCallID: "p", Content: "r"},
	{Role: "assistant", Content: "answer", Reasoning: "thought before answering"},
	{Role: "user", Content: "again"},
}

func TestChat_Streaming(t *testing.T) {
	var body map[string]any
	var auth string
	c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&body)
		auth = r.Header.Get("Authorization")
		sse(w,
			delta(`{"role":"assistant","reasoning_content":"think "}`, ""),
			delta(`{"reasoning_content":"hard"}`, ""),
			delta(`{"content":"Hel"}`, ""),
			delta(`{"content":"lo"}`, ""),
			delta(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read","arguments":"{\"file"}}]}`, ""),
			delta(`{"tool_calls":[{"index":0,"function":{"arguments":"_path\":\"x\"}"}}]}`, ""),
			delta(`{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"grep","arguments":"{}"}}]}`, ""),
			delta(`{}`, "tool_calls"),
			`{"id":"x","object":"chat.completion.chunk","created":1,"model":"deepseek-flash","choices":[],"usage":{"prompt_tokens":300,"completion_tokens":4,"total_tokens":304,"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":44}}`,
		)
	}, ChatConfig{Model: "deepseek-flash"})
	var events []string
	resp, err := c.Complete(context.Background(), Request{
		System: "s", Messages: append([]Message(nil), toolHistory...),
		Tools: []Tool{{Name: "read", Description: "d", Parameters: jsonv.MustParse(`{"type":"object","properties":{}}`)}},
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
	if resp.Text != "Hello" || resp.Reasoning != "think hard" || len(resp.ToolCalls) != 2 || resp.FinishReason != "tool_calls" {
		t.Errorf("response %+v", resp)
	}
	if u := resp.Usage; u != (Usage{PromptTokens: 300, CompletionTokens: 4, TotalTokens: 304, CacheHit: 256, CacheMiss: 44, CacheKnown: true}) {
		t.Errorf("usage %+v", u)
	}
	if auth != "Bearer sk-test-0123456789" {
		t.Errorf("auth header %q", auth)
	}
	msgs, _ := json.Marshal(body["messages"])
	wantMsgs := `[{"content":"s","role":"system"},{"content":"u","role":"user"},` +
		`{"reasoning_content":"","role":"assistant","tool_calls":[{"function":{"arguments":"{}","name":"read"},"id":"p","type":"function"}]},` +
		`{"content":"r","role":"tool","tool_call_id":"p"},{"content":"answer","role":"assistant"},{"content":"again","role":"user"}]`
	if string(msgs) != wantMsgs {
		t.Errorf("messages\n got  %s\n want %s", msgs, wantMsgs)
	}
	if tools, _ := json.Marshal(body["tools"]); string(tools) != `[{"function":{"description":"d","name":"read","parameters":{"properties":{},"type":"object"}},"type":"function"}]` {
		t.Errorf("tools %s", tools)
	}
	if body["stream"] != true || body["model"] != "deepseek-flash" {
		t.Errorf("stream %v model %v", body["stream"], body["model"])
	}
	if so, _ := json.Marshal(body["stream_options"]); string(so) != `{"include_usage":true}` {
		t.Errorf("stream_options %s", so)
	}
}

// TestChat_Dialects: DeepSeek models get reasoning_content on every
// tool-call message and the thinking controls; any other model gets a
// plain request.
func TestChat_Dialects(t *testing.T) {
	for _, tc := range []struct {
		name, model   string
		thinking      Thinking
		reasoningSent bool
		thinkingField string
		effort        string
	}{
		{"deepseek default thinking", "deepseek-flash", ThinkingDefault, true, "", ""},
		{"deepseek off", "deepseek-v4-pro", ThinkingOff, true, `{"type":"disabled"}`, ""},
		{"deepseek high", "deepseek-flash", ThinkingHigh, true, `{"type":"enabled"}`, "high"},
		{"deepseek max via a gateway", "deepseek/deepseek-v4-pro", ThinkingMax, true, `{"type":"enabled"}`, "max"},
		{"openai model ignores thinking", "gpt-5-mini", ThinkingMax, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var raw []byte
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				var m json.RawMessage
				json.NewDecoder(r.Body).Decode(&m)
				raw = m
				sse(w, delta(`{"content":"ok"}`, "stop"))
			}, ChatConfig{Model: "unused"})
			if _, err := c.Complete(context.Background(), Request{Model: tc.model, Messages: append([]Message(nil), toolHistory...), Thinking: tc.thinking}, Handler{}); err != nil {
				t.Fatal(err)
			}
			var body struct {
				Model    string `json:"model"`
				Messages []map[string]json.RawMessage
				Thinking json.RawMessage `json:"thinking"`
				Effort   string          `json:"reasoning_effort"`
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Fatal(err)
			}
			_, toolMsg := body.Messages[1]["reasoning_content"]
			_, plainMsg := body.Messages[3]["reasoning_content"]
			if toolMsg != tc.reasoningSent || plainMsg {
				t.Errorf("reasoning_content on the tool-call message %v (want %v), on the plain answer %v", toolMsg, tc.reasoningSent, plainMsg)
			}
			if string(body.Thinking) != tc.thinkingField || body.Effort != tc.effort || body.Model != tc.model {
				t.Errorf("model %q thinking %s effort %q", body.Model, body.Thinking, body.Effort)
			}
		})
	}
}

// TestChat_StablePrefix: the second request of a growing history starts
// with the first one's messages, byte for byte, and says the same as a
// request of the same messages written whole.
func TestChat_StablePrefix(t *testing.T) {
	c, _ := NewChat(ChatConfig{APIKey: "k"})
	tools := []Tool{{Name: "read", Description: "d", Parameters: jsonv.MustParse(`{"type":"object"}`)}}
	var hist History
	hist.Append(toolHistory[:3]...)
	req := Request{System: "sys", History: &hist, Tools: tools}
	first := string(c.body(&req, "deepseek-flash"))
	hist.Append(Message{Role: "assistant", Content: "done"}, Message{Role: "user", Content: "next"})
	second := string(c.body(&req, "deepseek-flash"))
	cut := strings.Index(first, `],"tools"`)
	if cut < 0 || !strings.HasPrefix(second, first[:cut]) {
		t.Fatalf("the second request does not extend the first\n first  %s\n second %s", first, second)
	}
	if !strings.HasSuffix(second, first[cut+1:]) {
		t.Errorf("tools and options moved\n first  %s\n second %s", first, second)
	}
	whole := Request{System: "sys", Messages: hist.Messages(), Tools: tools}
	if got := string(c.body(&whole, "deepseek-flash")); got != second {
		t.Errorf("the history's request differs from the same messages written whole\n history %s\n whole   %s", second, got)
	}
}

func TestAppendString_MatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x01\x1f\n\r\t\b\f", "ünï © 😀", "bad \xff\xfe utf8", "\u2028\u2029", "<>&"} {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q: invalid JSON %s: %v", s, got, err)
			continue
		}
		want, _ := json.Marshal(s)
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("%q: decodes to %q, encoding/json gives %q", s, back, wantBack)
		}
	}
}

func TestChat_ToolCache(t *testing.T) {
	var c toolCache
	a := []Tool{{Name: "t", Description: "one", Parameters: jsonv.MustParse(`{"type":"object"}`)}}
	first := string(c.appendTools(nil, a))
	a[0].Description = "two"
	second := string(c.appendTools(nil, a))
	if first == second || !strings.Contains(second, `"two"`) {
		t.Errorf("a changed description was not re-encoded: %s", second)
	}
	a[0].Parameters = jsonv.MustParse(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	if third := string(c.appendTools(nil, a)); !strings.Contains(third, `"x"`) {
		t.Errorf("changed parameters were not re-encoded: %s", third)
	}
}

// TestPartsReader: the body read piece by piece is the joined body, as
// often as it is read (a retry reads it again).
func TestPartsReader(t *testing.T) {
	parts := [][]byte{[]byte(`{"a":`), {}, []byte(`[1,2,3]`), []byte(","), []byte(`"xyz"}`)}
	want := `{"a":[1,2,3],"xyz"}`
	for _, size := range []int{1, 3, 64} {
		var b strings.Builder
		buf := make([]byte, size)
		r := &partsReader{parts: parts}
		for {
			n, err := r.Read(buf)
			b.Write(buf[:n])
			if err == io.EOF {
				break
			}
		}
		if b.String() != want {
			t.Errorf("read %d bytes at a time: %q, want %q", size, b.String(), want)
		}
	}
}

// TestChat_PostsParts: a Chat's request of thousands of parts (a long
// history), some empty, reaches a server over TCP byte for byte.
func TestChat_PostsParts(t *testing.T) {
	var parts [][]byte
	var want strings.Builder
	for i := range 3000 {
		p := []byte(strings.Repeat(fmt.Sprintf("%x", i%16), (i*37)%1500))
		parts = append(parts, p)
		want.Write(p)
	}
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	defer srv.Close()
	c, err := NewChat(ChatConfig{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.post(context.Background(), "/chat/completions", parts, want.Len())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if b := <-got; string(b) != want.String() {
		t.Errorf("the server got %d bytes, not the %d sent (equal: %v)", len(b), want.Len(), string(b) == want.String())
	}
}
