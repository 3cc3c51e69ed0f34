package batchwrite

import (
	"errors"
	"io"
	"runtime"
	"sync"
	"time"
)

// MaxQueued is how many bytes may wait for the writer before a caller
// waits for room: a reader that stops reading slows its writers down
// instead of letting their memory grow.
const MaxQueued = 4 << 20

// keepBuffer is the largest queue buffer kept for reuse once written (a
// 2,000-line read card is about 0.5 MB; a rare larger one is let go).
const keepBuffer = 1 << 20

// ErrClosed is a write after the writer was drained.
var ErrClosed = errors.New("batchwrite: the writer is closed")

// Writer writes what any number of goroutines queue to w, in the order it
// was queued, from one goroutine of its own. What is queued while it
// writes goes out together in its next Write: a turn's 25 call
// announcements, or a call's in-progress and completed updates, cost the
// editor one wake-up instead of one each. Before it takes a batch, the
// writer lets the goroutines that are ready to run go first, once, so
// that those the same event woke (the helper's answers to several reads)
// queue theirs in time. Nothing waits for a timer.
type Writer struct {
	w io.Writer

	mu      sync.Mutex
	cond    *sync.Cond // broadcast when bytes are queued, written, or the writer stops
	queue   []byte     // the bytes waiting
	spare   []byte     // the last written batch's buffer, for reuse
	err     error      // the first failed Write: every later write returns it
	closing bool
	max     int // MaxQueued, unless NewSize set it
	// queued and written count the bytes ever queued and ever taken by
	// a Write (or discarded after a failed one), for flush.
	queued, written int64

	done chan struct{} // closed when the goroutine has returned
}

// New starts a writer to w. Its owner must call Drain exactly once,
// which ends its goroutine.
func New(w io.Writer) *Writer { return NewSize(w, MaxQueued) }

// NewSize is New with max bytes queued at most (more when one write is
// larger: a write to an empty queue always fits).
func NewSize(w io.Writer, max int) *Writer {
	lw := &Writer{w: w, max: max, done: make(chan struct{})}
	lw.cond = sync.NewCond(&lw.mu)
	go lw.run()
	return lw
}

// Write queues p and returns without waiting for it to be written,
// unless the queue is full. It does not keep p. It returns the writer's
// first write error, or ErrClosed after Drain.
func (lw *Writer) Write(p []byte) error { return lw.enqueue(p, false) }

// WriteLine is Write for a line: a '\n' is added when p does not end in
// one.
func (lw *Writer) WriteLine(p []byte) error { return lw.enqueue(p, true) }

func (lw *Writer) enqueue(p []byte, line bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for len(lw.queue) >= lw.max && lw.err == nil && !lw.closing {
		lw.cond.Wait()
	}
	switch {
	case lw.err != nil:
		return lw.err
	case lw.closing:
		return ErrClosed
	}
	wake := len(lw.queue) == 0
	n := len(lw.queue)
	lw.queue = append(lw.queue, p...)
	if line && (len(p) == 0 || p[len(p)-1] != '\n') {
		lw.queue = append(lw.queue, '\n')
	}
	lw.queued += int64(len(lw.queue) - n)
	if wake {
		lw.cond.Broadcast()
	}
	return nil
}

// run writes what is queued, all of it at once, until Drain has been
// called and the queue is empty. After a failed Write it discards what is
// queued.
func (lw *Writer) run() {
	defer close(lw.done)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for {
		for len(lw.queue) == 0 && !lw.closing {
			lw.cond.Wait()
		}
		if len(lw.queue) == 0 {
			return // closing, and everything queued was written
		}
		// The goroutines woken with the first writer (with GOMAXPROCS=1,
		// all of them run on this thread) queue theirs before the batch
		// is taken.
		lw.mu.Unlock()
		runtime.Gosched()
		lw.mu.Lock()
		batch := lw.queue
		lw.queue = lw.spare[:0]
		lw.spare = nil
		var err error
		if lw.err == nil {
			lw.mu.Unlock()
			_, err = lw.w.Write(batch)
			lw.mu.Lock()
		}
		if err != nil && lw.err == nil {
			lw.err = err
		}
		lw.written += int64(len(batch))
		if cap(batch) <= keepBuffer {
			lw.spare = batch[:0]
		}
		lw.cond.Broadcast() // room for the writers waiting on a full queue
	}
}

// Flush waits until everything queued before it was called has been
// written, and returns the writer's first write error. It waits for as
// long as the Write takes: a reader that stops reading holds it up.
func (lw *Writer) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for target := lw.queued; lw.written < target && lw.err == nil; {
		lw.cond.Wait()
	}
	return lw.err
}

// Drain stops taking writes, waits up to wait for the queued ones to be
// written, and reports whether they were (a Write that never returns, to
// a reader that stopped reading, is given up on). It must be called
// exactly once; its goroutine ends when the queue is written.
func (lw *Writer) Drain(wait time.Duration) bool {
	lw.mu.Lock()
	lw.closing = true
	lw.cond.Broadcast()
	lw.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-lw.done:
		return true
	case <-timer.C:
		return false
	}
}
