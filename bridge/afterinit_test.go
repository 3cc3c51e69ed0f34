package bridge_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/internal/rpctest"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// TestServer_WritesAllBeforeReturning: messages are queued for a writer of
// their own, which writes those queued meanwhile together; when the input
// ends, Serve returns only once every answer it owes is written (the
// process exits right after).
func TestServer_WritesAllBeforeReturning(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	const n = 50
	for id := 2; id <= n; id++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"no/such_method","params":{}}`+"\n", id)
	}
	// A client that reads slowly: the answers are still being written
	// when the input has ended and the requests are done.
	var buf syncBuffer
	out := &slowWriter{w: &buf, delay: 30 * time.Millisecond}
	if err := bridge.NewServer(bridge.Config{}).Serve(context.Background(), strings.NewReader(in.String()), out); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for id := 1; id <= n; id++ {
		if !strings.Contains(got, fmt.Sprintf(`"id":%d,`, id)) {
			t.Errorf("no answer to request %d once Serve returned (%d lines written)", id, strings.Count(got, "\n"))
			break
		}
	}
	if lines := strings.Count(got, "\n"); lines != n {
		t.Errorf("%d lines, want %d", lines, n)
	}
	// The answers queued while a write was under way went out together:
	// one write per line would wake the editor once per line.
	if w := out.count(); w > n/2 {
		t.Errorf("%d lines took %d writes, want at most %d", n, w, n/2)
	}
}

// TestServer_OneProducerIsNotHeldByTheWriter: a turn streams its answer
// as many small updates, one after the other, from one goroutine, to an
// editor that reads slowly; the turn queues them and goes on, so those
// queued meanwhile go out together. (Concurrent replies batch even when
// each waits for its write: only a single producer tells the two apart.)
func TestServer_OneProducerIsNotHeldByTheWriter(t *testing.T) {
	text := strings.Repeat("twelve bytes", 60) // the script streams 12 bytes a piece
	script, err := model.ParseScript("long answer", []byte(fmt.Sprintf(`{"text":%q}`+"\n", text)))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := &slowWriter{w: outW, delay: 5 * time.Millisecond}
	srv := bridge.NewServer(bridge.Config{Model: script})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, inR, out) }()
	lines := &countingReader{r: outR}
	rpc := rpctest.New(lines, inW)
	rpc.Call(t, 1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	created := rpc.Call(t, 2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, t.TempDir()))
	_, rest, _ := strings.Cut(created, `"sessionId":"`)
	sid, _, _ := strings.Cut(rest, `"`)
	w0, l0 := out.count(), lines.newlines()
	if got := rpc.Call(t, 3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}`, sid)); !strings.Contains(got, "end_turn") {
		t.Fatalf("prompt: %s", got)
	}
	writes, written := out.count()-w0, lines.newlines()-l0
	if written < 60 {
		t.Fatalf("the turn wrote %d lines, want at least 60 (its pieces)", written)
	}
	if writes > written/2 {
		t.Errorf("%d lines of one turn took %d writes, want at most %d", written, writes, written/2)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outW.Close()
}

// countingReader counts the newlines read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(strings.Count(string(p[:n]), "\n")))
	return n, err
}

func (c *countingReader) newlines() int { return int(c.n.Load()) }

// slowWriter passes writes on to w, each after delay, and counts them.
type slowWriter struct {
	w      io.Writer
	delay  time.Duration
	writes atomic.Int32
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	time.Sleep(w.delay)
	return w.w.Write(p)
}

func (w *slowWriter) count() int { return int(w.writes.Load()) }

// TestServer_AfterTurn: the hook runs once per prompt turn, before the
// prompt is answered.
func TestServer_AfterTurn(t *testing.T) {
	script, err := model.ParseScript("two turns", []byte(`{"text":"one"}`+"\n"+`{"text":"two"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var calls atomic.Int32
	var history []int
	srv := bridge.NewServer(bridge.Config{Model: script, AfterTurn: func(n int) { history = append(history, n); calls.Add(1) }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, inR, outW) }()
	rpc := rpctest.New(outR, inW)
	answer := func(id int, method, params string) string { t.Helper(); return rpc.Call(t, id, method, params) }
	answer(1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	created := answer(2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, t.TempDir()))
	_, rest, _ := strings.Cut(created, `"sessionId":"`)
	sid, _, _ := strings.Cut(rest, `"`)
	if sid == "" {
		t.Fatalf("session/new: %s", created)
	}
	for i, want := range []int32{1, 2} {
		got := answer(3+i, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}`, sid))
		if !strings.Contains(got, `"stopReason":"end_turn"`) {
			t.Fatalf("prompt %d: %s", i+1, got)
		}
		if n := calls.Load(); n != want {
			t.Errorf("after prompt %d the hook had run %d times, want %d", i+1, n, want)
		}
	}
	// Each turn adds a prompt and an answer to the history it is told of.
	if len(history) != 2 || history[0] <= 0 || history[1] <= history[0] {
		t.Errorf("history bytes told %v, want two, growing", history)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outW.Close()
}
