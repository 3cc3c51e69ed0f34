package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// TestRouteAnswer: answers reach their calls, in every shape an editor
// may send them; what is not an answer is left to the usual path.
func TestRouteAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		line    string // %d is the call's number
		routed  bool
		content string // the result's content, when it has one
		code    int64  // the error's code, when it is one
	}{
		{"a result", `{"jsonrpc":"2.0","id":%d,"result":{"content":"a\nb"}}`, true, "a\nb", 0},
		{"members in another order", `{"result":{"content":"é"},"id":%d,"jsonrpc":"2.0"}`, true, "é", 0},
		{"a lone surrogate escape, read as encoding/json reads it", `{"jsonrpc":"2.0","id":%d,"result":{"content":"x\ud800y"}}`, true, "x\ufffdy", 0},
		{"duplicate keys, read as encoding/json reads them", `{"jsonrpc":"2.0","id":%d,"result":{"content":"old","content":"new"}}`, true, "new", 0},
		{"a number past float64's range", `{"jsonrpc":"2.0","id":%d,"result":{"content":"x","n":1e400}}`, true, "", -1},
		{"an error", `{"jsonrpc":"2.0","id":%d,"error":{"code":-32002,"message":"not found"}}`, true, "", -32002},
		{"a malformed error", `{"jsonrpc":"2.0","id":%d,"error":"boom"}`, true, "", CodeInternalError},
		{"a null error and a result", `{"jsonrpc":"2.0","id":%d,"error":null,"result":{"content":"z"}}`, true, "z", 0},
		{"a request", `{"jsonrpc":"2.0","id":%d,"method":"x","params":{}}`, false, "", 0},
		{"a request with its method last", `{"jsonrpc":"2.0","params":{"a":[1,{"b":"}"}]},"id":%d,"method":"x"}`, false, "", 0},
		{"a request with an escaped key", `{"jsonrpc":"2.0","id":%d,"meth\u006fd":"x"}`, false, "", 0},
		{"a method key nested in the result", `{"jsonrpc":"2.0","id":%d,"result":{"content":"m","method":"x"}}`, true, "m", 0},
		{"a method key in a file's text", `{"jsonrpc":"2.0","id":%d,"result":{"content":"{\"method\": 1}"}}`, true, `{"method": 1}`, 0},
		{"not JSON", `{"jsonrpc":"2.0","id":%d,`, false, "", 0},
		{"an array", `[{"jsonrpc":"2.0","id":%d,"result":1}]`, false, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lineStream{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			id, ch, err := s.calls.begin()
			if err != nil {
				t.Fatal(err)
			}
			line := strings.Replace(tc.line, "%d", jsonv.IntValue(int64(id)).String(), 1)
			if got := s.routeAnswer([]byte(line)); got != tc.routed {
				t.Fatalf("routed %v, want %v", got, tc.routed)
			}
			if !tc.routed {
				return
			}
			a := <-ch
			if tc.code == -1 { // unreadable: an error that says so
				if a.err == nil || !strings.Contains(a.err.Error(), "cannot be read") {
					t.Fatalf("error %v, want one saying the answer cannot be read", a.err)
				}
				return
			}
			if tc.code != 0 {
				var we *jsonrpc2.Error
				if !errors.As(a.err, &we) || we.Code != tc.code {
					t.Fatalf("error %v, want code %d", a.err, tc.code)
				}
				return
			}
			c, _ := a.result.Get("content")
			if a.err != nil || c.Str() != tc.content {
				t.Errorf("content %q (%v), want %q", c.Str(), a.err, tc.content)
			}
		})
	}
}

// TestEditorCalls: the numbering, a caller that stops waiting, answers to
// no call, and the end of the stream.
func TestEditorCalls(t *testing.T) {
	s := &lineStream{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a, cha, _ := s.calls.begin()
	b, chb, _ := s.calls.begin()
	if a != 1 || b != 2 {
		t.Fatalf("numbers %d, %d: want 1, 2 (0 reads as no id to some clients)", a, b)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"result":null}`,
		`{"jsonrpc":"2.0","id":-1,"result":null}`,
		`{"jsonrpc":"2.0","id":"1","result":null}`,
		`{"jsonrpc":"2.0","id":99,"result":null}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	} {
		if !s.routeAnswer([]byte(line)) {
			t.Errorf("%s: not taken as an answer", line)
		}
	}
	select {
	case got := <-cha:
		t.Fatalf("call 1 answered by an answer to another: %+v", got)
	default:
	}
	s.calls.forget(b) // its caller stopped waiting: a late answer is dropped
	s.routeAnswer([]byte(`{"jsonrpc":"2.0","id":2,"result":1}`))
	select {
	case got := <-chb:
		t.Fatalf("a forgotten call was answered: %+v", got)
	default:
	}
	s.Close() // the connection closes its stream when the input ends
	select {
	case got := <-cha:
		if !errors.Is(got.err, jsonrpc2.ErrClosed) {
			t.Errorf("a waiting call at the end: %v", got.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting call still waits once the stream is closed")
	}
	if _, _, err := s.calls.begin(); !errors.Is(err, jsonrpc2.ErrClosed) {
		t.Errorf("a call after the end: %v", err)
	}
}

// TestCallEditor: a call is written in one pass and its answer decoded;
// a caller whose context ends stops waiting.
func TestCallEditor(t *testing.T) {
	srv, out := replyConn(t)
	var res struct {
		TerminalID string `json:"terminalId"`
	}
	done := make(chan error, 1)
	go func() {
		done <- srv.Call(context.Background(), "terminal/create", map[string]any{"sessionId": "s", "args": []string{"-c", "a\"b"}}, &res)
	}()
	line := waitLine(t, out)
	want := `{"jsonrpc":"2.0","id":1,"method":"terminal/create","params":{"args":["-c","a\"b"],"sessionId":"s"}}`
	if line != want {
		t.Fatalf("wrote %s\nwant  %s", line, want)
	}
	srv.stream.routeAnswer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"terminalId":"t7"}}`))
	if err := <-done; err != nil || res.TerminalID != "t7" {
		t.Fatalf("%v %+v", err, res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- srv.Call(ctx, "fs/read_text_file", nil, nil) }()
	if line := waitLine(t, out); line != `{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file"}` {
		t.Errorf("without params: %s", line)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// waitLine waits for the next line written to out, and returns it.
func waitLine(t *testing.T, out *SyncBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		out.mu.Lock()
		s, err := out.buf.ReadString('\n')
		if err != nil {
			out.buf.WriteString(s) // not a whole line yet: put it back
		}
		out.mu.Unlock()
		if err == nil {
			return strings.TrimSuffix(s, "\n")
		}
	}
	t.Fatal("no line written")
	return ""
}
