package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// pipeConn serves methods over pipes; send writes a line to it, next
// reads the next line it wrote. The connection ends at the test's end.
func pipeConn(t *testing.T, methods map[string]Method, opt Options) (send func(string), next func() map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	c := NewConn(inR, outW, methods, opt)
	served := make(chan struct{})
	go func() { c.Serve(context.Background()); c.Close(time.Second); outW.Close(); close(served) }()
	lines := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not JSON: %s", sc.Bytes())
			}
			lines <- m
		}
		close(lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		for range lines {
		}
		<-served
	})
	send = func(line string) { io.WriteString(inW, line+"\n") }
	next = func() map[string]any {
		t.Helper()
		select {
		case m := <-lines:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no line written")
			return nil
		}
	}
	return send, next
}

type echoParams struct {
	Text string `json:"text"`
}

// errorCode is the code of an error answer (0 when it is none).
func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestConn_Handle: typed handlers get their params and answer with their
// result or their error's code; a panic is -32603; the connection stays
// up through malformed lines.
func TestConn_Handle(t *testing.T) {
	busy := NewError(CodeInvalidRequest, "busy")
	methods := map[string]Method{
		"echo":     Handle(func(_ context.Context, p echoParams) (echoParams, error) { return p, nil }),
		"optional": HandleOptional(func(_ context.Context, p echoParams) (string, error) { return "got " + p.Text, nil }),
		"busy":     Handle(func(context.Context, echoParams) (struct{}, error) { return struct{}{}, fmt.Errorf("%w: now", busy) }),
		"panics":   Handle(func(context.Context, echoParams) (struct{}, error) { panic("boom") }),
		"plain":    Handle(func(context.Context, echoParams) (struct{}, error) { return struct{}{}, errors.New("plain") }),
	}
	send, next := pipeConn(t, methods, Options{})
	for _, tc := range []struct {
		name, line string
		code       float64
		result     any
	}{
		{"a result", `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hi"}}`, 0, map[string]any{"text": "hi"}},
		{"params required", `{"jsonrpc":"2.0","id":2,"method":"echo"}`, CodeInvalidParams, nil},
		{"params that do not decode", `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"text":1}}`, CodeInvalidParams, nil},
		{"optional params absent", `{"jsonrpc":"2.0","id":4,"method":"optional"}`, 0, "got "},
		{"a sentinel's code", `{"jsonrpc":"2.0","id":5,"method":"busy","params":{}}`, CodeInvalidRequest, nil},
		{"a panic", `{"jsonrpc":"2.0","id":6,"method":"panics","params":{}}`, CodeInternalError, nil},
		{"a plain error", `{"jsonrpc":"2.0","id":7,"method":"plain","params":{}}`, CodeInternalError, nil},
		{"an unknown method", `{"jsonrpc":"2.0","id":8,"method":"nope","params":{}}`, CodeMethodNotFound, nil},
		{"a malformed line", `{"jsonrpc":`, CodeParseError, nil},
		{"a batch", `[{"jsonrpc":"2.0","id":9,"method":"echo","params":{}}]`, CodeInvalidRequest, nil},
		{"still up", `{"jsonrpc":"2.0","id":10,"method":"echo","params":{"text":"up"}}`, 0, map[string]any{"text": "up"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			send(tc.line)
			m := next()
			if got := errorCode(m); got != tc.code {
				t.Fatalf("code %v, want %v: %v", got, tc.code, m)
			}
			if tc.code == 0 && fmt.Sprint(m["result"]) != fmt.Sprint(tc.result) {
				t.Errorf("result %v, want %v", m["result"], tc.result)
			}
		})
	}
}

// TestConn_Order: notifications are served on the read loop in arrival
// order, work after a reply runs before anything written later, and
// $/cancel_request cancels the request it names.
func TestConn_Order(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var c *Conn
	started := make(chan struct{})
	methods := map[string]Method{
		"note": Notification(func(_ context.Context, p echoParams) {
			mu.Lock()
			seen = append(seen, p.Text)
			mu.Unlock()
		}),
		"then": Handle(func(ctx context.Context, p echoParams) (string, error) {
			AfterReply(ctx, func() { c.Notify("after", p) })
			return "answer", nil
		}),
		"wait": Handle(func(ctx context.Context, _ echoParams) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		}),
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c = NewConn(inR, outW, methods, Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	served := make(chan struct{})
	go func() { c.Serve(context.Background()); c.Close(time.Second); outW.Close(); close(served) }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line written")
			return ""
		}
	}
	for i := range 50 {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","method":"note","params":{"text":"%d"}}`+"\n", i)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"then","params":{"text":"x"}}`+"\n")
	if got := next(); got != `{"jsonrpc":"2.0","id":1,"result":"answer"}` {
		t.Errorf("first %s, want the answer", got)
	}
	if got := next(); got != `{"jsonrpc":"2.0","method":"after","params":{"text":"x"}}` {
		t.Errorf("then %s, want the notification sent after the reply", got)
	}
	mu.Lock()
	for i, s := range seen {
		if s != fmt.Sprint(i) {
			t.Errorf("notification %d served as %s: out of order", i, s)
			break
		}
	}
	if len(seen) != 50 {
		t.Errorf("%d notifications served before the request behind them, want 50", len(seen))
	}
	mu.Unlock()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":"w","method":"wait","params":{}}`+"\n")
	<-started
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"w"}}`+"\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(next()), &m); err != nil || m["id"] != "w" || errorCode(m) != CodeInternalError {
		t.Errorf("the cancelled request answered %v (%v)", m, err)
	}
	inW.Close()
	for range lines {
	}
	<-served
}
