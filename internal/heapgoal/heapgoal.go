package heapgoal

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const (
	// Floor is the least headroom: about what a bridge holds live before
	// its first session, so that a young process collects no more often
	// than with GOGC=100.
	Floor = 2 << 20
	// HistoryShare is the headroom over the sessions' histories, as a
	// fraction 1/HistoryShare of them: 64 MiB of history add 4 MiB.
	HistoryShare = 16
	// MaxPercent is the Go default: the headroom never exceeds the live
	// heap.
	MaxPercent = 100
)

// Percent is the GOGC for a live heap of live bytes of which history are
// the sessions' histories (text and encodings: nothing the collector
// scans). The headroom is all of the rest, as with GOGC=100 (collecting
// more often would scan it more often), plus a sixteenth of the
// history, and at least Floor: max(Floor, live − history + history/16), as a
// percentage of live rounded up, MaxPercent at most.
func Percent(live, history uint64) int {
	if live <= Floor {
		return MaxPercent
	}
	history = min(history, live)
	headroom := max(Floor, live-history+history/HistoryShare)
	return min(MaxPercent, int((headroom*100+live-1)/live))
}

// Tuner applies Percent to the process. Adjust may be called from any
// goroutine.
type Tuner struct {
	mu   sync.Mutex
	last int // the GOGC Adjust last set; 0 before its first call
	// set is debug.SetGCPercent; tests replace it.
	set func(int) int
}

// Adjust reads the live heap as of the last collection and sets GOGC to
// its Percent, given history bytes of sessions' histories, when that
// differs from what it set last. It returns the percent in effect. It
// stops no goroutine and collects nothing.
func (t *Tuner) Adjust(history uint64) int {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.last
	}
	return t.apply(s[0].Value.Uint64(), history)
}

func (t *Tuner) apply(live, history uint64) int {
	p := Percent(live, history)
	t.mu.Lock()
	defer t.mu.Unlock()
	if p != t.last {
		set := t.set
		if set == nil {
			set = debug.SetGCPercent
		}
		set(p)
		t.last = p
	}
	return p
}
