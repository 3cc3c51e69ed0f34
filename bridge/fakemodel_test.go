package bridge_test

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/model"
)

// fakeCall is one scripted tool call.
type fakeCall struct{ id, name, args string }

// fakeTurn is one scripted model response.
type fakeTurn struct {
	reasoning  string
	text       string
	calls      []fakeCall
	finish     string // default "stop" or "tool_calls"
	status     int    // non-zero: answer with this HTTP error status
	message    string // the error message of status (default "scripted failure")
	retryAfter string // the Retry-After header of status
	hang       bool   // stream the text, then wait for the client to go away
	cut        bool   // stream the text, then drop the connection
}

// fakeModel is a loopback fake of DeepSeek's API as it behaves today
// (api-docs.deepseek.com, read 2026-11-30; the model names from its
// pricing page and list-models answer, read 2026-12-04 from issue 47's
// copies), so that a request the real service would refuse is refused
// here too:
//   - GET /models lists deepseek-v4-flash and deepseek-v4-pro (and
//     qwen3-coder, another provider's model, for tests of those);
//   - a model it does not serve (the retired deepseek-chat and
//     deepseek-reasoner among them) gets 400 "Model Not Exist";
//   - a wrong key gets 401;
//   - thinking is on unless the request disables it: the answer streams
//     reasoning_content, and an assistant message with tool_calls but no
//     reasoning_content gets the 400 the real API gives;
//   - usage carries prompt_cache_hit_tokens / prompt_cache_miss_tokens,
//     the hit being the prefix shared with the previous request (in 64-token
//     units, as the real cache works), with 4 bytes to a token;
//   - a request longer than window tokens (when set) gets the real
//     context-length 400;
//   - a body longer than maxBody bytes (when set) gets, before it is
//     read, the 413 HTML page api.deepseek.com's openresty sends (its
//     cap is some tens of MB; relays in front of it often cap at nginx's
//     default, 1 MB);
//   - the answer streams as the real one does: every chunk with its whole
//     envelope (id, created, model, system_fingerprint, logprobs), and
//     reasoning, text and each call's arguments a token at a time, a call's
//     id and name first with empty arguments.
//
// Each chat request takes the next scripted turn (an empty script answers
// "done") and is recorded for assertions.
type fakeModel struct {
	srv      *httptest.Server
	mu       sync.Mutex
	turns    []fakeTurn
	requests []chatRequest
	bodies   [][]byte
	usages   []fakeUsage // what each streamed answer reported
	refused  int         // requests refused as longer than the window
	always   *fakeTurn   // answer every request with this turn
	// tokens, when set, are the usages the next answers report, in order
	// (else they are measured from the request, as the real service's are).
	tokens []fakeUsage
	// pace, when set, is the pause after each streamed event. The real
	// service sends a token every few tens of ms, so every event finds the
	// bridge idle and wakes it; back to back, several can arrive in one
	// read. Benchmarks set a short pace, enough for the bridge to go idle
	// between events.
	pace time.Duration
	// sent is when each tool call's last byte was flushed to the bridge:
	// the earliest the call could start (by call id).
	sent map[string]time.Time
	// respond, when set, computes each request's turn.
	respond func(chatRequest) fakeTurn
	// before, when set, is called with each chat request once it is
	// recorded, outside the fake's lock (it may wait for other requests).
	before  func(chatRequest)
	key     string       // the accepted API key (default "test-key"); "-" accepts any
	ca      string       // newFakeModelTLS: the PEM file of its certificate
	window  int          // the context window in tokens; 0: unlimited
	maxBody int          // the largest request body in bytes; 0: unlimited
	large   int          // requests refused as larger than maxBody
	conns   atomic.Int64 // the connections clients opened
	// summary, when set, answers summary requests (no tools, thinking
	// disabled) without taking a scripted turn.
	summary string
	// listed, when set, is the models this fake lists and serves instead
	// of fakeListed and fakeModels; set it before the bridge starts.
	listed []string
	// Title requests (a session's, after its first exchange: system prompt
	// model.TitlePrompt) are answered apart, as the scripted model answers
	// them: they take no scripted turn and are kept out of requests,
	// bodies and usages, so that a test's count and order of the
	// conversation's requests hold whenever a title request comes.
	// title is their answer ("": the first words of the request's first
	// user message), titleStatus an HTTP error status to answer instead;
	// titles records them.
	title       string
	titleStatus int
	titles      []chatRequest
	titleUsed   []fakeUsage // what each title answer reported
}

// fakeUsage is the usage one answer reported.
type fakeUsage struct{ prompt, completion, hit, miss int }

type chatMessage struct {
	Role             string  `json:"role"`
	Content          any     `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
	ToolCallID       string  `json:"tool_call_id"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream   bool `json:"stream"`
	Thinking *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	ReasoningEffort string `json:"reasoning_effort"`
}

// thinking reports whether the request runs in thinking mode.
func (r chatRequest) thinking() bool { return r.Thinking == nil || r.Thinking.Type != "disabled" }

// fakeModels are the models the fake serves; fakeListed those it lists.
var (
	fakeModels = []string{"deepseek-v4-flash", "deepseek-v4-pro", "qwen3-coder"}
	fakeListed = []string{"deepseek-v4-flash", "deepseek-v4-pro", "qwen3-coder"}
)

func newFakeModel(t testing.TB, turns ...fakeTurn) *fakeModel {
	f := &fakeModel{turns: turns, key: "test-key"}
	f.srv = f.server()
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

// server is the fake's server, not started, counting the connections it
// accepts (conns).
func (f *fakeModel) server() *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.conns.Add(1)
		}
	}
	return srv
}

// newFakeModelTLS is newFakeModel served over HTTPS, as the real service
// is: every client then decrypts each streamed event and encrypts each
// request body. Its ca is the server's certificate in PEM, for the
// clients to trust (SSL_CERT_FILE for Go's, --cacert for curl).
func newFakeModelTLS(t testing.TB) *fakeModel {
	f := &fakeModel{key: "test-key"}
	f.srv = f.server()
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	f.ca = filepath.Join(t.TempDir(), "fake-model-ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw})
	if err := os.WriteFile(f.ca, cert, 0o644); err != nil {
		t.Fatal(err)
	}
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

func (f *fakeModel) reported() []fakeUsage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeUsage(nil), f.usages...)
}

func (f *fakeModel) rawBodies() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

// tooLarge is how many requests were refused as larger than maxBody.
func (f *fakeModel) tooLarge() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.large
}

// openresty413 is the page api.deepseek.com's front sends for a body over
// its cap (as reported by its users, Cloudflare's script shortened).
const openresty413 = `<html>
<head><title>413 Request Entity Too Large</title></head>
<body>
<center><h1>413 Request Entity Too Large</h1></center>
<hr><center>openresty</center>
<script>(function(){var a=document.createElement('iframe');a.height=1;a.width=1;document.body.appendChild(a)})();</script></body>
</html>
`

// apiError writes an error body shaped as DeepSeek's.
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": "invalid_request_error"}})
	w.Write(b)
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	key, listed, served := f.key, fakeListed, fakeModels
	if f.listed != nil {
		listed, served = f.listed, f.listed
	}
	f.mu.Unlock()
	if got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "); key != "-" && got != key {
		apiError(w, http.StatusUnauthorized, "authentication_error", "Authentication Fails, Your api key: ****"+got[max(0, len(got)-4):]+" is invalid")
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/models":
		data := []any{}
		for _, id := range listed {
			data = append(data, map[string]any{"id": id, "object": "model", "owned_by": "deepseek"})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	case r.Method != http.MethodPost || r.URL.Path != "/chat/completions":
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	maxBody := f.maxBody
	if maxBody > 0 && r.ContentLength > int64(maxBody) {
		f.large++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, openresty413)
		return
	}
	f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "Failed to deserialize the JSON body into the target type")
		return
	}
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" && req.Messages[0].Content == model.TitlePrompt {
		f.answerTitle(w, req, len(body)/4)
		return
	}
	f.mu.Lock()
	prev := []byte(nil)
	if len(f.bodies) > 0 {
		prev = f.bodies[len(f.bodies)-1]
	}
	f.requests = append(f.requests, req)
	f.bodies = append(f.bodies, body)
	window, summary, before := f.window, f.summary, f.before
	f.mu.Unlock()
	if before != nil {
		before(req)
	}

	if !slices.Contains(served, req.Model) {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "Model Not Exist")
		return
	}
	if !strings.HasPrefix(req.Model, "deepseek-") {
		// Another provider's model, served as strictly as OpenAI does:
		// DeepSeek's extensions are unknown arguments.
		for _, m := range req.Messages {
			if m.ReasoningContent != nil {
				apiError(w, http.StatusBadRequest, "invalid_request_error", "Unrecognized request argument supplied: reasoning_content")
				return
			}
		}
		if req.Thinking != nil || req.ReasoningEffort != "" {
			apiError(w, http.StatusBadRequest, "invalid_request_error", "Unrecognized request argument supplied: thinking")
			return
		}
		req.Thinking = &struct {
			Type string `json:"type"`
		}{"disabled"} // no reasoning streams back
	} else if req.thinking() {
		for _, m := range req.Messages {
			if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.ReasoningContent == nil {
				apiError(w, http.StatusBadRequest, "invalid_request_error", "The reasoning_content in the thinking mode must be passed back to the API.")
				return
			}
		}
	}
	prompt := len(body) / 4
	if window > 0 && prompt > window {
		f.mu.Lock()
		f.refused++
		f.mu.Unlock()
		apiError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, 0 in the completion). Please reduce the length of the messages or completion.", window, prompt, prompt))
		return
	}
	turn := fakeTurn{text: "done"}
	f.mu.Lock()
	switch {
	case summary != "" && len(req.Tools) == 0 && !req.thinking():
		turn = fakeTurn{text: summary}
	case f.respond != nil:
		turn = f.respond(req)
	case f.always != nil:
		turn = *f.always
	case len(f.turns) > 0:
		turn, f.turns = f.turns[0], f.turns[1:]
	}
	f.mu.Unlock()
	if turn.status != 0 {
		if turn.retryAfter != "" {
			w.Header().Set("Retry-After", turn.retryAfter)
		}
		msg := turn.message
		if msg == "" {
			msg = "scripted failure"
		}
		apiError(w, turn.status, "invalid_request_error", msg)
		return
	}
	if req.thinking() && turn.reasoning == "" {
		turn.reasoning = "Thinking it over."
	}
	if !req.thinking() {
		turn.reasoning = ""
	}
	f.stream(w, r, req, turn, prompt, sharedPrefix(prev, body)/4/64*64)
}

// answerTitle serves a title request.
func (f *fakeModel) answerTitle(w http.ResponseWriter, req chatRequest, prompt int) {
	f.mu.Lock()
	f.titles = append(f.titles, req)
	title, status := f.title, f.titleStatus
	f.mu.Unlock()
	if status != 0 {
		apiError(w, status, "invalid_request_error", "scripted failure")
		return
	}
	if req.thinking() {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "test: a title request must not think")
		return
	}
	if title == "" {
		for _, m := range req.Messages {
			if c, ok := m.Content.(string); ok && m.Role == "user" {
				line, _, _ := strings.Cut(c, "\n")
				words := strings.Fields(line)
				title = strings.Join(words[:min(len(words), 6)], " ")
				break
			}
		}
	}
	f.mu.Lock()
	f.titleUsed = append(f.titleUsed, fakeUsage{prompt, 1 + len(title)/4, 0, prompt})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for _, v := range []any{
		map[string]any{"id": "chatcmpl-t", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": title}, "finish_reason": "stop"}}},
		map[string]any{"id": "chatcmpl-t", "object": "chat.completion.chunk", "created": 1, "model": req.Model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": 1 + len(title)/4, "total_tokens": prompt + 1 + len(title)/4,
				"prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": prompt}},
	} {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// billed is every usage the fake reported: the conversation's requests
// (reported) and the title requests', which the session pays for too.
func (f *fakeModel) billed() []fakeUsage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(append([]fakeUsage(nil), f.usages...), f.titleUsed...)
}

// titleRequests are the title requests served so far.
func (f *fakeModel) titleRequests() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chatRequest(nil), f.titles...)
}

func sharedPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func (f *fakeModel) stream(w http.ResponseWriter, r *http.Request, req chatRequest, turn fakeTurn, prompt, hit int) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		flusher.Flush()
		if f.pace > 0 {
			time.Sleep(f.pace)
		}
	}
	// Every chunk carries the envelope the real service sends, and text,
	// reasoning and arguments arrive a token (some 4 bytes) at a time.
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"system_fingerprint": "fp_fake_prod0820",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	completion := 1 + (len(turn.reasoning)+len(turn.text))/4
	for i, p := range tokenPieces(turn.reasoning) {
		d := map[string]any{"reasoning_content": p}
		if i == 0 {
			d["role"], d["content"] = "assistant", nil
		}
		send(chunk(d, nil))
	}
	for _, p := range tokenPieces(turn.text) {
		send(chunk(map[string]any{"content": p}, nil))
	}
	if turn.cut {
		return // the connection drops without a finish_reason or [DONE]
	}
	if turn.hang {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	}
	for i, c := range turn.calls {
		completion += len(c.args) / 4
		send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		for _, p := range tokenPieces(c.args) {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil))
		}
		f.mu.Lock()
		if f.sent == nil {
			f.sent = map[string]time.Time{}
		}
		f.sent[c.id] = time.Now()
		f.mu.Unlock()
	}
	finish := turn.finish
	if finish == "" {
		finish = "stop"
		if len(turn.calls) > 0 {
			finish = "tool_calls"
		}
	}
	send(chunk(map[string]any{"content": ""}, finish))
	f.mu.Lock()
	if len(f.tokens) > 0 {
		prompt, completion, hit = f.tokens[0].prompt, f.tokens[0].completion, f.tokens[0].hit
		f.tokens = f.tokens[1:]
	}
	f.usages = append(f.usages, fakeUsage{prompt, completion, hit, prompt - hit})
	f.mu.Unlock()
	send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": req.Model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"prompt_cache_hit_tokens": hit, "prompt_cache_miss_tokens": prompt - hit,
			"completion_tokens_details": map[string]any{"reasoning_tokens": len(turn.reasoning) / 4}}})
	fmt.Fprint(w, "data: [DONE]\n\n")
	flusher.Flush()
}

// tokenPieces cuts s where a tokenizer might, about every 4 bytes and
// never inside a UTF-8 sequence, as the real service streams text,
// reasoning and tool arguments.
func tokenPieces(s string) []string {
	var out []string
	for s != "" {
		n := min(4, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// sentAt is when the call's last byte was flushed to the bridge.
func (f *fakeModel) sentAt(id string) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.sent[id]
	return t, ok
}
