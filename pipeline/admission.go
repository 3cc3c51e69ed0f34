package pipeline

import (
	"context"
	"sync"
	"time"
)

// Admission bounds how many calls run their bodies at once across every
// batch that shares it (all the sessions of a process), and admits them
// in arrival order, so that a burst of calls from many sessions waits as
// pending instead of running hundreds of bodies at once on a few cores.
// A call holds its slot while it dispatches (its wrappers and body), or
// for the lease at most: a long call (a command, a fetch, an
// approval-free MCP tool) stops counting after the lease, so it never
// holds others back. The zero value is not
// usable; a nil *Admission admits every call at once.
type Admission struct {
	slots chan struct{}
	lease time.Duration
}

// NewAdmission admits n calls at once, each counting for lease at most.
func NewAdmission(n int, lease time.Duration) *Admission {
	if n < 1 {
		n = 1
	}
	return &Admission{slots: make(chan struct{}, n), lease: lease}
}

// Acquire waits for a slot in arrival order (Go wakes the goroutines
// blocked on a channel first come, first served) or for ctx to end. The
// returned release frees the slot; it may be called any number of times
// and is also called by the lease timer. When ctx ends first, release is
// a no-op and the call proceeds (to find its context cancelled).
func (a *Admission) Acquire(ctx context.Context) (release func()) {
	if a == nil {
		return func() {}
	}
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return func() {}
	}
	var once sync.Once
	free := func() { once.Do(func() { <-a.slots }) }
	t := time.AfterFunc(a.lease, free)
	return func() {
		t.Stop()
		free()
	}
}
