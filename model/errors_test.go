package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestChat_Retries(t *testing.T) {
	for _, tc := range []struct {
		name       string
		statuses   []int // answers before a success; 0 = success
		retryAfter string
		wantCalls  int32
		wantWait   time.Duration // the first wait, when checked
		wantErr    int           // the HTTP status of the final error; 0 = success
	}{
		{"5xx retried then succeeds", []int{503, 500, 0}, "", 3, 0, 0},
		{"429 honours Retry-After seconds", []int{429, 0}, "2", 2, 2 * time.Second, 0},
		{"Retry-After capped", []int{429, 0}, "3600", 2, time.Minute, 0},
		{"429 given up after the retries", []int{429, 429, 429, 429, 429}, "1", 4, time.Second, 429},
		{"401 never retried", []int{401, 0}, "", 1, 0, 401},
		{"402 never retried", []int{402, 0}, "", 1, 0, 402},
		{"400 never retried", []int{400, 0}, "", 1, 0, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			var bodies sync.Map // request index → body
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				i := n.Add(1) - 1
				b, _ := io.ReadAll(r.Body)
				bodies.Store(i, string(b))
				if int(i) < len(tc.statuses) && tc.statuses[i] != 0 {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.statuses[i])
					fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"x","param":null,"code":"invalid_request_error"}}`, tc.statuses[i])
					return
				}
				sse(w, delta(`{"content":"ok"}`, "stop"))
			}, ChatConfig{Model: "deepseek-flash"})
			var waits []time.Duration
			c.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			req := Request{System: "be brief", Messages: []Message{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi"}, {Role: "user", Content: "again"}}}
			resp, err := c.Complete(context.Background(), req, Handler{})
			if n.Load() != tc.wantCalls {
				t.Errorf("%d requests, want %d", n.Load(), tc.wantCalls)
			}
			// Every attempt sends the whole body (it is read again, not
			// drained by the first attempt).
			first, _ := bodies.Load(int32(0))
			for i := range n.Load() {
				if b, _ := bodies.Load(i); b != first || !json.Valid([]byte(b.(string))) || !strings.Contains(b.(string), `"again"`) {
					t.Errorf("attempt %d sent %q, the first %q", i, b, first)
				}
			}
			if tc.wantWait != 0 && (len(waits) == 0 || waits[0] != tc.wantWait) {
				t.Errorf("waits %v, want first %v", waits, tc.wantWait)
			}
			var apiErr *APIError
			switch {
			case tc.wantErr == 0 && (err != nil || resp.Text != "ok"):
				t.Errorf("resp %+v err %v", resp, err)
			case tc.wantErr != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tc.wantErr || apiErr.Message != fmt.Sprintf("scripted %d", tc.wantErr)):
				t.Errorf("err %v, want HTTP %d with the API's message", err, tc.wantErr)
			}
		})
	}
}

func TestAPIError_Explain(t *testing.T) {
	listed := []string{"deepseek-v4-flash", "deepseek-v4-pro"}
	for _, tc := range []struct {
		name string
		err  APIError
		want []string
	}{
		{"401 names the key's source", APIError{Status: 401, Message: "Authentication Fails, Your api key: ****abcd is invalid", KeySource: "DEEPSEEK_API_KEY"},
			[]string{"refused", "DEEPSEEK_API_KEY", "Authentication Fails"}},
		{"402 balance", APIError{Status: 402, Message: "Insufficient Balance"}, []string{"insufficient balance", "top it up", "Insufficient Balance"}},
		{"400 model lists the models", APIError{Status: 400, Message: "Model Not Exist"}, []string{`"deepseek-chat"`, "deepseek-v4-flash, deepseek-v4-pro", "Model Not Exist"}},
		{"429 after retries", APIError{Status: 429, Message: "Rate Limit Reached", Attempts: 4}, []string{"rate limiting", "4 attempts", "Rate Limit Reached"}},
		{"503", APIError{Status: 503, Message: "Server Overloaded", Attempts: 4}, []string{"HTTP 503", "Server Overloaded"}},
		{"connection", APIError{Transport: true, Message: "dial tcp: connection refused"}, []string{"Could not reach", "connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.err.Explain("deepseek-chat", listed)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
	if !(&APIError{Status: 400, Message: "This model's maximum context length is 2000 tokens. However, you requested 2100 tokens"}).ContextTooLong() {
		t.Error("the context-length refusal is not recognised")
	}
}

func TestChat_KeyNeverEchoed(t *testing.T) {
	const key = "sk-secret-abcdef0123456789"
	c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Your api key: %s is invalid"}}`, key)
	}, ChatConfig{APIKey: key, KeySource: "DSH_API_KEY", Model: "deepseek-flash"})
	_, err := c.Complete(context.Background(), Request{}, Handler{})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || strings.Contains(err.Error(), key) || strings.Contains(apiErr.Explain("m", nil), key) {
		t.Errorf("the key leaks: %v", err)
	}
}

func TestChat_StreamCut(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		wantText  string
		announced int
	}{
		{"connection drops mid-text", "data: " + delta(`{"content":"partial "}`, "") + "\n\ndata: " + delta(`{"content":"answer"}`, "") + "\n\n", "partial answer", 0},
		{"a finished call survives, an open one does not",
			"data: " + delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":"{}"}}]}`, "") + "\n\n" +
				"data: " + delta(`{"tool_calls":[{"index":1,"id":"b","function":{"name":"grep","arguments":"{\"pat"}}]}`, "") + "\n\n", "", 1},
		{"error event", "data: " + delta(`{"content":"so far"}`, "") + "\n\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n", "so far", 0},
		{"garbage event", "data: " + delta(`{"content":"x"}`, "") + "\n\ndata: {not json\n\n", "x", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, tc.body)
			}, ChatConfig{Model: "deepseek-flash"})
			var announced []string
			resp, err := c.Complete(context.Background(), Request{}, Handler{OnToolCall: func(tc ToolCall) { announced = append(announced, tc.ID) }})
			if !errors.Is(err, ErrStreamCut) {
				t.Fatalf("err %v, want ErrStreamCut", err)
			}
			if resp.Text != tc.wantText || len(resp.ToolCalls) != 0 || len(resp.Announced) != tc.announced || len(announced) != tc.announced {
				t.Errorf("resp %+v announced %v", resp, announced)
			}
		})
	}
	t.Run("a finished answer without [DONE] is whole", func(t *testing.T) {
		c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "data: "+delta(`{"content":"ok"}`, "stop")+"\n\n: keep-alive\n\n")
		}, ChatConfig{Model: "m"})
		if resp, err := c.Complete(context.Background(), Request{}, Handler{}); err != nil || resp.Text != "ok" {
			t.Errorf("resp %+v err %v", resp, err)
		}
	})
}

func TestChat_Cancel(t *testing.T) {
	c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: "+delta(`{"content":"partial"}`, "")+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}, ChatConfig{Model: "m"})
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := c.Complete(ctx, Request{}, Handler{OnText: func(string) { cancel() }})
	if !errors.Is(err, context.Canceled) || resp.Text != "partial" {
		t.Errorf("resp %+v err %v", resp, err)
	}
}

func TestChat_Models(t *testing.T) {
	c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/models" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"deepseek-v4-flash","object":"model","owned_by":"deepseek"},{"id":"deepseek-v4-pro","object":"model","owned_by":"deepseek"}]}`)
	}, ChatConfig{})
	got, err := c.Models(context.Background())
	if err != nil || strings.Join(got, ",") != "deepseek-v4-flash,deepseek-v4-pro" {
		t.Errorf("models %v err %v", got, err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, "0.5": 500 * time.Millisecond, "-1": 0, "soon": 0,
		now.Add(10 * time.Second).Format(http.TimeFormat): 10 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

// TestChat_HTMLErrorPage: an error page a proxy or CDN sends instead of
// the API's JSON reaches the person as its title (or first heading),
// never as markup or script; a 413 is TooLarge, with the request's size.
func TestChat_HTMLErrorPage(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		want                    string
	}{
		{"openresty 413", "text/html", "<html>\n<head><title>413 Request Entity Too Large</title></head>\n<body><center><h1>413 Request Entity Too Large</h1></center><hr><center>openresty</center><script>var a=1;</script></body></html>", 413,
			"413 Request Entity Too Large (an HTML page, not the API's answer)"},
		{"a heading only, no content type", "", "<body><H1>\n  502 Bad\n Gateway </H1></body>", 502, "502 Bad Gateway (an HTML page, not the API's answer)"},
		{"neither", "text/html; charset=utf-8", "<html><body><p>nope</p><script>x()</script></body></html>", 503, "an HTML page, not the API's answer"},
		{"plain text stays", "text/plain", "upstream connect error", 503, "upstream connect error"},
		// Letters whose lower case is longer (İ), and bytes that are not
		// UTF-8, before the title must not shift where it is cut.
		{"non-ASCII before the title", "text/html", "<html><!-- İİİİİİİİ \xff\xfe --><TITLE>Attention Required! | Cloudflare</TITLE></html>", 403,
			"Attention Required! | Cloudflare (an HTML page, not the API's answer)"},
		{"entities in the title", "text/html", "<title>Bad &amp; gone &#8212; try later</title>", 502, "Bad & gone — try later (an HTML page, not the API's answer)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}, ChatConfig{APIKey: "k", Model: "deepseek-flash", MaxRetries: -1})
			_, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hello there"}}}, Handler{})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Message != tc.want {
				t.Fatalf("error %v, want the message %q", err, tc.want)
			}
			if apiErr.TooLarge() != (tc.status == 413) || apiErr.RequestBytes < len("hello there") {
				t.Errorf("TooLarge %v, RequestBytes %d", apiErr.TooLarge(), apiErr.RequestBytes)
			}
			if got := apiErr.Explain("deepseek-flash", nil); strings.Contains(got, "<") || !strings.Contains(got, tc.want) ||
				tc.status == 413 && !strings.Contains(got, "larger than the model API") {
				t.Errorf("the person reads %q", got)
			}
		})
	}
}
