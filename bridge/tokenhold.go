package bridge

import (
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/stackreserve"
)

// DefaultTokenHold is how long syntax-token work may wait for the tool
// calls of its batch (Config.TokenHold's default): colours are decoration,
// and the calls still running need the CPU more (a 25-read batch's reads
// completed 1.6 times later in the median, on 2 cores, while finished
// reads were tokenized beside them).
const DefaultTokenHold = 16 * time.Millisecond

// tokenHold runs a session's syntax-token work after the batch of tool
// calls that made it, or its hold after it was held, whichever comes
// first; with no batch running, at once. Tokens were once made by a helper
// process at a low scheduling priority, which did the same by other means;
// Go's are now made in the bridge (package golex), at the priority of
// everything else.
//
// Each piece of work runs on a goroutine of its own, which ends when the
// work returns; the timer's goroutine ends when it has released what was
// held. The zero value is ready to use.
type tokenHold struct {
	mu      sync.Mutex
	batches int      // batches of tool calls running
	held    []func() // work waiting for them
	timer   *time.Timer
	hold    time.Duration // DefaultTokenHold when zero (Config.TokenHold)
}

// enter records that a batch of tool calls started.
func (h *tokenHold) enter() {
	h.mu.Lock()
	h.batches++
	h.mu.Unlock()
}

// leave records that a batch ended; when none is left running, the work
// held for them starts.
func (h *tokenHold) leave() {
	h.mu.Lock()
	h.batches--
	var work []func()
	if h.batches == 0 {
		work = h.takeLocked()
	}
	h.mu.Unlock()
	startWork(work)
}

// run starts f now, or holds it for the running batches.
func (h *tokenHold) run(f func()) {
	h.mu.Lock()
	if h.batches == 0 {
		h.mu.Unlock()
		go grown(f)
		return
	}
	h.held = append(h.held, f)
	if h.timer == nil {
		d := h.hold
		if d <= 0 {
			d = DefaultTokenHold
		}
		h.timer = time.AfterFunc(d, h.release)
	}
	h.mu.Unlock()
}

// release starts what is held (the timer's end).
func (h *tokenHold) release() {
	h.mu.Lock()
	work := h.takeLocked()
	h.mu.Unlock()
	startWork(work)
}

func (h *tokenHold) takeLocked() []func() {
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
	work := h.held
	h.held = nil
	return work
}

func startWork(work []func()) {
	for _, f := range work {
		go grown(f)
	}
}

// grown runs f after growing the goroutine's stack in one step: a read's
// tokens are lexed and written by a deep chain.
func grown(f func()) {
	stackreserve.Grow()
	f()
}
