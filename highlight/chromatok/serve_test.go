package chromatok

import (
	"bufio"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// writeLog records each Write the helper makes to its output, and passes
// the bytes on to a pipe the test reads answers from.
type writeLog struct {
	mu     sync.Mutex
	writes int
	w      io.Writer
}

func (l *writeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.writes++
	l.mu.Unlock()
	return l.w.Write(p)
}

func (l *writeLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes
}

// helperRun is serveHeld over pipes: the test sends requests and reads
// answers while the helper runs.
type helperRun struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	log  *writeLog
	done chan error
}

func startHeld(t *testing.T, hold time.Duration) *helperRun {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &helperRun{in: inW, out: bufio.NewReader(outR), log: &writeLog{w: outW}, done: make(chan error, 1)}
	go func() {
		err := serveHeld(inR, h.log, 1, hold)
		outW.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, h.out)
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(5 * time.Second): // fail now, not at the test binary's timeout
			t.Error("serve did not end within 5 s of its input's end")
		}
	})
	line := make(chan string, 1)
	go func() {
		l, err := h.out.ReadString('\n')
		if err != nil {
			l += " (" + err.Error() + ")"
		}
		line <- l
	}()
	select {
	case l := <-line:
		if l != highlight.ProtocolLine+"\n" {
			t.Fatalf("protocol line %q", l)
		}
	case <-time.After(5 * time.Second): // a held first line must fail the test, not hang it
		t.Fatal("no protocol line within 5 s")
	}
	return h
}

func (h *helperRun) send(t *testing.T, ids ...uint64) {
	t.Helper()
	var frames []byte
	for _, id := range ids {
		frames = highlight.AppendRequest(frames, highlight.Request{ID: id, Path: "a.go", Lines: []string{"package a"}})
	}
	if _, err := h.in.Write(frames); err != nil {
		t.Fatal(err)
	}
}

// next reads one answer, failing t when none comes within 5 s.
func (h *helperRun) next(t *testing.T) highlight.Answer {
	t.Helper()
	got := make(chan highlight.Answer, 1)
	go func() {
		a, err := highlight.ReadAnswer(h.out)
		if err != nil {
			a.Err = "read: " + err.Error()
		}
		got <- a
	}()
	select {
	case a := <-got:
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no answer within 5 s")
		return highlight.Answer{}
	}
}

// slowAnswers makes every answer take d, and those whose id is in gate
// also wait for the gate to close; restored when t ends.
func slowAnswers(t *testing.T, d time.Duration, gate map[uint64]chan struct{}) {
	answerFn = func(q highlight.Request) highlight.Answer {
		time.Sleep(d)
		if g := gate[q.ID]; g != nil {
			<-g
		}
		return answer(q)
	}
	t.Cleanup(func() { answerFn = answer })
}

// TestServe_HoldsAnswers: answers share a write while requests wait, and
// none waits longer than the hold.
func TestServe_HoldsAnswers(t *testing.T) {
	t.Run("a lone request is answered at once", func(t *testing.T) {
		h := startHeld(t, time.Hour)
		h.send(t, 1)
		if a := h.next(t); a.ID != 1 || a.Err != "" {
			t.Fatalf("answer %+v", a)
		}
	})
	t.Run("answers to waiting requests share one write", func(t *testing.T) {
		slowAnswers(t, 20*time.Millisecond, nil) // the next request is read meanwhile
		h := startHeld(t, time.Hour)
		before := h.log.count()
		h.send(t, 1, 2, 3, 4, 5)
		for range 5 {
			if a := h.next(t); a.Err != "" {
				t.Fatalf("answer %+v", a)
			}
		}
		if n := h.log.count() - before; n != 1 {
			t.Errorf("5 answers took %d writes, want 1", n)
		}
	})
	t.Run("a held answer goes out when the hold ends", func(t *testing.T) {
		gate := make(chan struct{})
		defer close(gate)
		slowAnswers(t, 0, map[uint64]chan struct{}{2: gate}) // 2 never finishes while the test waits
		h := startHeld(t, 30*time.Millisecond)
		h.send(t, 1, 2)
		if a := h.next(t); a.ID != 1 {
			t.Fatalf("answer %+v, want 1's", a)
		}
	})
}
