package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestChat_StreamIdle plays streams that go quiet, or keep the connection
// alive with SSE comments, against a short idle limit.
func TestChat_StreamIdle(t *testing.T) {
	for _, tc := range []struct {
		name string
		// serve writes the answer; hold is closed when the test ends.
		serve   func(w http.ResponseWriter, hold <-chan struct{})
		idle    time.Duration
		wantErr string // "" for a complete answer
		text    string // what the Response holds
	}{
		{
			name: "quiet mid-answer: cut, what arrived kept",
			serve: func(w http.ResponseWriter, hold <-chan struct{}) {
				fmt.Fprintf(w, "data: %s\n\n", delta(`{"reasoning_content":"thinking"}`, ""))
				fmt.Fprintf(w, "data: %s\n\n", delta(`{"content":"half an"}`, ""))
				w.(http.Flusher).Flush()
				<-hold
			},
			idle:    150 * time.Millisecond,
			wantErr: "no data from the model for 150ms",
			text:    "half an",
		},
		{
			name: "keep-alive comments while queued, then the answer",
			serve: func(w http.ResponseWriter, hold <-chan struct{}) {
				for range 8 {
					fmt.Fprint(w, ": keep-alive\n\n")
					w.(http.Flusher).Flush()
					time.Sleep(50 * time.Millisecond)
				}
				sse(w, delta(`{"content":"late but whole"}`, "stop"))
			},
			idle: 150 * time.Millisecond,
			text: "late but whole",
		},
		{
			name: "no watchdog (negative): a slow answer completes",
			serve: func(w http.ResponseWriter, hold <-chan struct{}) {
				w.(http.Flusher).Flush()
				time.Sleep(300 * time.Millisecond)
				sse(w, delta(`{"content":"slow"}`, "stop"))
			},
			idle: -1,
			text: "slow",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				tc.serve(w, hold)
			}, ChatConfig{StreamIdle: tc.idle, MaxRetries: -1})
			done := make(chan struct{})
			var resp Response
			var err error
			go func() {
				defer close(done)
				resp, err = c.Complete(context.Background(), Request{Messages: []Message{{Role: "user", Content: "u"}}}, Handler{})
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the answer never ended")
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err %v", err)
			case tc.wantErr != "" && (!errors.Is(err, ErrStreamCut) || !strings.Contains(fmt.Sprint(err), tc.wantErr)):
				t.Fatalf("err %v, want ErrStreamCut with %q", err, tc.wantErr)
			}
			if resp.Text != tc.text {
				t.Errorf("text %q, want %q", resp.Text, tc.text)
			}
		})
	}
}

// TestChat_StreamIdleDefaults: DeepSeek's models get the short limit, the
// others the long one, a set limit wins, a negative one is none.
func TestChat_StreamIdleDefaults(t *testing.T) {
	for _, tc := range []struct {
		set   time.Duration
		model string
		want  time.Duration
	}{
		{0, "deepseek-v4-pro", StreamIdleDeepSeek},
		{0, "deepseek-flash", StreamIdleDeepSeek},
		{0, "gpt-5", StreamIdleOther},
		{0, "qwen3-coder", StreamIdleOther},
		{20 * time.Second, "deepseek-flash", 20 * time.Second},
		{-1, "deepseek-flash", 0},
	} {
		t.Run(fmt.Sprintf("%s set %v", tc.model, tc.set), func(t *testing.T) {
			c, err := NewChat(ChatConfig{APIKey: "k", StreamIdle: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.streamIdle(tc.model); got != tc.want {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}
