package bridge

import (
	"errors"
	"io"
	"sync"
	"time"
)

// maxQueued is how many bytes of lines may wait for the writer before a
// caller waits for room: an editor that stops reading slows the bridge
// down instead of letting its memory grow.
const maxQueued = 4 << 20

// keepBuffer is the largest queue buffer kept for reuse once written (a
// 2,000-line read card is about 0.5 MB; a rare larger one is let go).
const keepBuffer = 1 << 20

// errWriterClosed is a write after the connection's writer was drained
// for the last time.
var errWriterClosed = errors.New("the connection's writer is closed")

// lineWriter writes the lines queued by any number of goroutines to w, in
// the order they were queued, from one goroutine of its own. Lines queued
// while it is writing go out together in its next Write: a turn's 25 call
// announcements, or a call's in-progress and completed updates, cost the
// editor one wake-up instead of one each. Nothing waits for a timer: the
// writer writes as soon as the scheduler runs it.
type lineWriter struct {
	w io.Writer

	mu      sync.Mutex
	cond    *sync.Cond // broadcast when lines are queued, written, or the writer stops
	queue   []byte     // lines waiting, each ending in '\n'
	spare   []byte     // the last written batch's buffer, for reuse
	err     error      // the first failed Write: every later write returns it
	closing bool
	max     int // maxQueued; tests lower it
	// queued and written count the bytes ever queued and ever taken by
	// a Write (or discarded after a failed one), for flush.
	queued, written int64

	done chan struct{} // closed when the goroutine has returned
}

// newLineWriter starts the writer's goroutine. Its owner must call drain
// exactly once, which ends it.
func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: w, max: maxQueued, done: make(chan struct{})}
	lw.cond = sync.NewCond(&lw.mu)
	go lw.run()
	return lw
}

// write queues line (a '\n' is added when it does not end in one) and
// returns without waiting for it to be written, unless the queue is full.
// It does not keep line. It returns the writer's first write error, or
// errWriterClosed after drain.
func (lw *lineWriter) write(line []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for len(lw.queue) >= lw.max && lw.err == nil && !lw.closing {
		lw.cond.Wait()
	}
	switch {
	case lw.err != nil:
		return lw.err
	case lw.closing:
		return errWriterClosed
	}
	wake := len(lw.queue) == 0
	n := len(lw.queue)
	lw.queue = append(lw.queue, line...)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		lw.queue = append(lw.queue, '\n')
	}
	lw.queued += int64(len(lw.queue) - n)
	if wake {
		lw.cond.Broadcast()
	}
	return nil
}

// run writes what is queued, all of it at once, until drain has been
// called and the queue is empty. After a failed Write it discards lines.
func (lw *lineWriter) run() {
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

// flush waits until every line queued before it was called has been
// written, and returns the writer's error. It waits for as long as the
// Write takes: an editor that stops reading holds it up.
func (lw *lineWriter) flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for target := lw.queued; lw.written < target && lw.err == nil; {
		lw.cond.Wait()
	}
	return lw.err
}

// drain stops taking lines, waits up to wait for the queued ones to be
// written, and reports whether they were (a Write that never returns, to
// an editor that stopped reading, is given up on).
func (lw *lineWriter) drain(wait time.Duration) bool {
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
