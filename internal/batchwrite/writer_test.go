package batchwrite

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// gateWriter records each Write whole. While it is held, a Write reports
// itself on entered and waits for release.
type gateWriter struct {
	mu      sync.Mutex
	writes  []string
	hold    bool
	entered chan struct{}
	release chan struct{}
	err     error
}

func newGateWriter(hold bool) *gateWriter {
	return &gateWriter{hold: hold, entered: make(chan struct{}, 64), release: make(chan struct{})}
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	hold := g.hold
	g.mu.Unlock()
	if hold {
		g.entered <- struct{}{}
		<-g.release
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return 0, g.err
	}
	g.writes = append(g.writes, string(p))
	return len(p), nil
}

// open stops holding writes and lets the one waiting (if any) go on. It
// may be called more than once.
func (g *gateWriter) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold {
		g.hold = false
		close(g.release)
	}
}

func (g *gateWriter) got() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.writes...)
}

func TestWriter(t *testing.T) {
	t.Run("lines queued during a write go out in one", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(true)
		lw := New(g)
		defer g.open() // a failed check must not leave the writer held
		writeSoon(t, lw, "a")
		<-g.entered // the writer holds "a\n"
		for _, l := range []string{"b", "c\n", "", "d"} {
			writeSoon(t, lw, l) // queued, not waited for
		}
		g.open()
		if !lw.Drain(5 * time.Second) {
			t.Fatal("not drained")
		}
		if got, want := g.got(), []string{"a\n", "b\nc\n\nd\n"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("writes %q, want %q", got, want)
		}
	})
	t.Run("every line once, each writer's in order", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(false)
		lw := New(g)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := range 200 {
					if err := lw.WriteLine(fmt.Appendf(nil, `{"w":%d,"i":%d}`, w, i)); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		lw.Drain(5 * time.Second)
		out := strings.Join(g.got(), "")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 8*200 || !strings.HasSuffix(out, "\n") {
			t.Fatalf("%d lines, want %d", len(lines), 8*200)
		}
		next := map[int]int{}
		for _, l := range lines {
			var w, i int
			if _, err := fmt.Sscanf(l, `{"w":%d,"i":%d}`, &w, &i); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			if i != next[w] {
				t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
			}
			next[w]++
		}
	})
	t.Run("a full queue makes the next write wait", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(true)
		lw := NewSize(g, 10)
		defer g.open()
		writeSoon(t, lw, "first")
		<-g.entered
		writeSoon(t, lw, "0123456789") // the queue was empty: it fits
		returned := make(chan error, 1)
		go func() { returned <- lw.WriteLine([]byte("third")) }()
		select {
		case err := <-returned:
			t.Fatalf("a write to a full queue returned (%v) before the writer made room", err)
		case <-time.After(100 * time.Millisecond):
		}
		g.open()
		must(t, <-returned)
		lw.Drain(5 * time.Second)
		if got := strings.Join(g.got(), ""); got != "first\n0123456789\nthird\n" {
			t.Errorf("wrote %q", got)
		}
	})
	t.Run("a failed write fails every later one", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(false)
		broken := errors.New("broken pipe")
		g.err = broken
		lw := New(g)
		must(t, lw.WriteLine([]byte("lost")))
		deadline := time.Now().Add(5 * time.Second)
		var err error
		for err == nil && time.Now().Before(deadline) {
			err = lw.WriteLine([]byte("after"))
			time.Sleep(time.Millisecond)
		}
		if !errors.Is(err, broken) {
			t.Errorf("write after a failure: %v, want %v", err, broken)
		}
		if err := lw.Flush(); !errors.Is(err, broken) {
			t.Errorf("flush after a failure: %v", err)
		}
		if !lw.Drain(5 * time.Second) {
			t.Error("a failed writer did not drain")
		}
	})
	t.Run("flush waits for the write", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(true)
		lw := New(g)
		defer g.open()
		writeSoon(t, lw, "answer")
		flushed := make(chan error, 1)
		go func() { flushed <- lw.Flush() }()
		<-g.entered
		select {
		case <-flushed:
			t.Fatal("flush returned while the line was still being written")
		case <-time.After(100 * time.Millisecond):
		}
		g.open()
		must(t, <-flushed)
		if got := g.got(); len(got) != 1 || got[0] != "answer\n" {
			t.Errorf("wrote %q", got)
		}
		lw.Drain(5 * time.Second)
	})
	t.Run("drain gives up on a writer that never returns", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(true)
		lw := New(g)
		defer g.open()
		writeSoon(t, lw, "stuck")
		<-g.entered
		if lw.Drain(50 * time.Millisecond) {
			t.Error("drain reported success while the write was stuck")
		}
		if err := lw.WriteLine([]byte("late")); !errors.Is(err, ErrClosed) {
			t.Errorf("write after drain: %v, want ErrClosed", err)
		}
		g.open()
		<-lw.done
	})
	t.Run("Write adds no newline", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(false)
		lw := New(g)
		must(t, lw.Write([]byte{1, 2}))
		must(t, lw.Write(nil))
		must(t, lw.Write([]byte("x\n")))
		lw.Drain(5 * time.Second)
		if got := strings.Join(g.got(), ""); got != "\x01\x02x\n" {
			t.Errorf("wrote %q", got)
		}
	})
	t.Run("what goroutines woken together queue goes out together", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		// One thread, as the bridge serves: ten goroutines that one
		// event makes ready (the helper's answers to ten reads) each
		// queue a line. The writer, woken by the first, lets the others
		// queue theirs before it writes. The scheduler's order is not
		// promised (the race detector shuffles it), so the check is over
		// many rounds: one write a round, give or take.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		const rounds, ready = 50, 10
		writes := 0
		for range rounds {
			g := newGateWriter(false)
			lw := New(g)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range ready {
				wg.Go(func() {
					<-start
					must(t, lw.WriteLine(fmt.Appendf(nil, "%d", i)))
				})
			}
			close(start)
			wg.Wait()
			lw.Drain(5 * time.Second)
			if got := strings.Count(strings.Join(g.got(), ""), "\n"); got != ready {
				t.Fatalf("%d lines written, want %d", got, ready)
			}
			writes += len(g.got())
		}
		t.Logf("%d writes for %d rounds of %d lines", writes, rounds, ready)
		if writes > 2*rounds {
			t.Errorf("%d writes for %d rounds of %d lines woken together, want at most %d", writes, rounds, ready, 2*rounds)
		}
	})
	t.Run("drain writes what is queued", func(t *testing.T) {
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		g := newGateWriter(false)
		lw := New(g)
		for i := range 100 {
			must(t, lw.WriteLine(fmt.Appendf(nil, "%d", i)))
		}
		if !lw.Drain(5 * time.Second) {
			t.Fatal("not drained")
		}
		if got := strings.Count(strings.Join(g.got(), ""), "\n"); got != 100 {
			t.Errorf("%d lines written before drain returned, want 100", got)
		}
	})
}

// writeSoon fails t when a write does not return at once (within 5 s): a
// write to a held writer that waits for its own line would otherwise hang
// the test until the test binary's timeout.
func writeSoon(t *testing.T, lw *Writer, line string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- lw.WriteLine([]byte(line)) }()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(5 * time.Second):
		t.Fatalf("writing %q waited for the write", line)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
