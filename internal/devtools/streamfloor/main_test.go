package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestRun checks that the floor client sends the whole request each time,
// on one connection, and counts exactly the answers' data events: a line
// longer than its buffer counts once, and text that only looks like an
// event inside such a line does not count.
func TestRun(t *testing.T) {
	// The look-alike starts the line's second buffer of 4096 bytes.
	long := strings.Repeat("x", 4096-len(`data: {"long":"`)) + "data: not an event" + strings.Repeat("y", 5000)
	var mu sync.Mutex
	var bodies []string
	conns := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Header.Get("Authorization")+" "+string(b))
		conns[r.RemoteAddr] = true
		mu.Unlock()
		if r.URL.Query().Get("fail") != "" {
			http.Error(w, "refused", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"a\":1}\n\n: a comment\n\ndata: {\"long\":\""+long+"\"}\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "event: x\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	t.Setenv("STREAMFLOOR_KEY", "k")

	tests := []struct {
		name    string
		args    []string
		want    string // stdout
		wantErr string
		posts   int
	}{
		{name: "once", args: []string{srv.URL}, want: "3\n", posts: 1},
		{name: "three times", args: []string{srv.URL, "3"}, want: "9\n", posts: 3},
		{name: "an error status", args: []string{srv.URL + "?fail=1"}, wantErr: "400", posts: 1},
		{name: "a bad count", args: []string{srv.URL, "0"}, wantErr: "positive"},
		{name: "no URL", args: nil, wantErr: "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			bodies, conns = nil, map[string]bool{}
			mu.Unlock()
			var out bytes.Buffer
			err := run(tt.args, strings.NewReader(`{"q":1}`), &out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("stdout %q, want %q", out.String(), tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(bodies) != tt.posts {
				t.Fatalf("%d requests, want %d", len(bodies), tt.posts)
			}
			for _, b := range bodies {
				if b != `Bearer k {"q":1}` {
					t.Errorf("request %q", b)
				}
			}
			if tt.posts > 0 && len(conns) != 1 {
				t.Errorf("%d connections, want the one kept alive", len(conns))
			}
		})
	}
}
