package bridge_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
)

// TestServer_AfterInitialize: the hook runs once, after the first
// initialize answer has been written, never before it and never again.
func TestServer_AfterInitialize(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var calls atomic.Int32
	var answered atomic.Bool
	srv := bridge.NewServer(bridge.Config{AfterInitialize: func() {
		if !answered.Load() {
			t.Error("the hook ran before the initialize answer was read")
		}
		calls.Add(1)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, inR, outW) }()
	lines := bufio.NewScanner(outR)
	for id := 1; id <= 2; id++ {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":`+string(rune('0'+id))+`,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
		if id == 1 {
			// The hook may only run once this line is out: hold the pipe
			// (the answer's write blocks until it is read) and check.
			time.Sleep(50 * time.Millisecond)
			if calls.Load() != 0 {
				t.Fatal("the hook ran before the answer was written")
			}
			answered.Store(true)
		}
		if !lines.Scan() || !strings.Contains(lines.Text(), `"protocolVersion":1`) {
			t.Fatalf("answer %d: %q (%v)", id, lines.Text(), lines.Err())
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	inW.Close()
	cancel()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the hook ran %d times, want once", n)
	}
}
