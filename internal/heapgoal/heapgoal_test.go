package heapgoal

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name          string
		live, history uint64
		want          int
	}{
		{"nothing live", 0, 0, 100},
		{"a fresh bridge", 2 * mib, 0, 100},
		{"no history: GOGC=100", 64 * mib, 0, 100},
		{"all history: a sixteenth, but the floor first", 8 * mib, 8 * mib, 25},
		{"all history, large: a sixteenth", 64 * mib, 64 * mib, 7},
		{"half history: the rest and a sixteenth of it", 32 * mib, 16 * mib, 54},
		{"a history said to be larger than the heap", 16 * mib, 64 * mib, 13},
		{"a long session: 2 MiB of state, 4 MiB of history", 6 * mib, 4 * mib, 38},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percent(tc.live, tc.history); got != tc.want {
				t.Errorf("Percent(%d, %d) = %d, want %d", tc.live, tc.history, got, tc.want)
			}
		})
	}
}

func TestTuner(t *testing.T) {
	var calls []int
	tu := &Tuner{set: func(p int) int { calls = append(calls, p); return 100 }}
	for _, s := range []struct{ live, history uint64 }{{1 << 20, 0}, {8 << 20, 0}, {8 << 20, 8 << 20}, {8<<20 + 1000, 8 << 20}, {64 << 20, 64 << 20}, {64 << 20, 64 << 20}} {
		tu.apply(s.live, s.history)
	}
	if want := []int{100, 25, 7}; len(calls) != len(want) || calls[0] != want[0] || calls[1] != want[1] || calls[2] != want[2] {
		t.Errorf("GOGC set to %v, want %v (once per change)", calls, want)
	}
}

// Adjust sets the process's GOGC from its own live heap: 16 MiB live, all
// of it said to be history, is given a headroom of 2 MiB.
func TestTuner_AdjustSetsTheProcess(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	live := make([]byte, 16<<20)
	runtime.GC() // the live heap as of the last collection
	var tu Tuner
	p := tu.Adjust(1 << 40)
	runtime.KeepAlive(live)
	if p < 1 || p >= MaxPercent {
		t.Fatalf("Adjust = %d, want below %d", p, MaxPercent)
	}
	if got := debug.SetGCPercent(100); got != p {
		t.Errorf("GOGC is %d after Adjust returned %d", got, p)
	}
}
