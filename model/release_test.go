package model

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestChat_ConnectionReused plays several answers in a row, the client
// pausing between them as a turn's tools do, and counts the connections
// the server accepted: the server ends each response after [DONE], at once
// or a moment later in a write of its own (as a proxy in front of the
// model often does), and a client that closes the body at [DONE] would
// dial again every time. A request waits for the last drain as long as it
// takes here (drainGrace): how soon a drain ends is the machine's
// scheduling, not the client's, and a loaded machine runs it late.
func TestChat_ConnectionReused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gap    time.Duration // between [DONE] and the response's end
		tls    bool
		h2     bool
		after  string        // written after [DONE] (flushed with it)
		pause  time.Duration // between an answer and the next request (the tools), beyond the gap
		cancel bool          // each request's context ends with its answer (the turn does)
		conns  int64         // the connections 4 requests make
	}{
		{name: "the end at once", pause: 20 * time.Millisecond, conns: 1},
		{name: "the end 5 ms after [DONE]", gap: 5 * time.Millisecond, pause: 20 * time.Millisecond, conns: 1},
		{name: "the end 5 ms after [DONE], the turn ending with the answer", gap: 5 * time.Millisecond, pause: 20 * time.Millisecond, cancel: true, conns: 1},
		// The tools end before the response does: the next request waits
		// for the drain rather than dial beside it.
		{name: "the end 3 ms after [DONE], the next request at once", gap: 3 * time.Millisecond, pause: -3 * time.Millisecond, conns: 1},
		{name: "the end 5 ms after [DONE], over TLS (HTTP/1.1)", gap: 5 * time.Millisecond, tls: true, pause: 20 * time.Millisecond, conns: 1},
		{name: "the end 5 ms after [DONE], over TLS (HTTP/2)", gap: 5 * time.Millisecond, tls: true, h2: true, pause: 20 * time.Millisecond, conns: 1},
		// More than the drain reads: each body is closed unread, each
		// request dials.
		{name: "100 KB after [DONE]", after: strings.Repeat(": keep-alive comment\n", 5000), pause: 20 * time.Millisecond, conns: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conns, proto atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				proto.Store(int64(r.ProtoMajor))
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "data: %s\n\n", delta(`{"content":"hi"}`, "stop"))
				w.(http.Flusher).Flush()
				fmt.Fprint(w, "data: [DONE]\n\n"+tc.after)
				w.(http.Flusher).Flush()
				time.Sleep(tc.gap)
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			cfg := ChatConfig{APIKey: "sk-test-0123456789"}
			if tc.tls {
				srv.EnableHTTP2 = tc.h2
				srv.StartTLS()
				cfg.HTTPClient = srv.Client()
			} else {
				srv.Start()
			}
			defer srv.Close()
			cfg.BaseURL = srv.URL
			c, err := NewChat(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c.drainGrace = time.Hour
			for i := range 4 {
				ctx, cancel := context.WithCancel(context.Background())
				resp, err := c.Complete(ctx, Request{Messages: []Message{{Role: "user", Content: "u"}}}, Handler{})
				if tc.cancel {
					cancel()
				}
				if err != nil || resp.Text != "hi" {
					t.Fatalf("answer %d: %q, %v", i, resp.Text, err)
				}
				time.Sleep(tc.gap + tc.pause) // the turn's tools
				cancel()
			}
			c.Wait()
			if want := map[bool]int64{false: 1, true: 2}[tc.h2]; proto.Load() != want {
				t.Errorf("HTTP/%d, want HTTP/%d", proto.Load(), want)
			}
			if got := conns.Load(); got != tc.conns {
				t.Errorf("4 requests made %d connections, want %d", got, tc.conns)
			}
		})
	}
}

// TestChat_ReleaseDoesNotWait holds the response open after [DONE]: the
// answer is returned at once all the same; the drain then reads the
// response's end when it comes, or gives up after its wait and closes the
// body.
func TestChat_ReleaseDoesNotWait(t *testing.T) {
	within := func(t *testing.T, what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			f()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal(what)
		}
	}
	for _, tc := range []struct {
		name   string
		wait   time.Duration // the drain's
		giveUp bool          // the server never ends the response by itself
	}{
		{name: "the end comes later", wait: time.Hour},
		{name: "the end never comes", wait: 100 * time.Millisecond, giveUp: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hold, ended := make(chan struct{}), make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(hold) }) }
			defer free() // a failed test frees the handler before the server closes
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				defer close(ended)
				sse(w, delta(`{"content":"hi"}`, "stop"))
				w.(http.Flusher).Flush()
				select {
				case <-hold:
				case <-r.Context().Done(): // the client closed the connection
				}
			}, ChatConfig{})
			c.drainWait = tc.wait
			within(t, "Complete waited for the response's end after [DONE]", func() {
				if _, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "u"}}}, Handler{}); err != nil {
					t.Error(err)
				}
			})
			if !tc.giveUp {
				free()
			}
			within(t, "the drain never ended", c.Wait)
			within(t, "the server never saw the response end", func() { <-ended })
		})
	}
}

// TestChat_ModelsConnectionReused lists the models, the list's end coming
// a moment after the list and the listing's context ending with it, then
// asks for an answer: one connection.
func TestChat_ModelsConnectionReused(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"deepseek-flash","object":"model","owned_by":"deepseek"}]}`+"\n")
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
			return
		}
		sse(w, delta(`{"content":"hi"}`, "stop"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, err := NewChat(ChatConfig{APIKey: "sk-test-0123456789", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ids, err := c.Models(ctx)
	cancel() // as the bridge's lister does, once it has the list
	if err != nil || len(ids) != 1 {
		t.Fatalf("models %v, %v", ids, err)
	}
	time.Sleep(25 * time.Millisecond)
	if _, err := c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "u"}}}, Handler{}); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if got := conns.Load(); got != 1 {
		t.Errorf("the list and an answer made %d connections, want 1", got)
	}
}
