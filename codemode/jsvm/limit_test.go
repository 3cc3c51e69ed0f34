package jsvm

import (
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
)

// TestMemCap: the cap is what the process uses, the run's headroom (the
// default when none is given) and the slack.
func TestMemCap(t *testing.T) {
	if got, want := memCap(100<<20, 0), uint64(100<<20)+coderun.DefaultHeapHeadroom+dataSlack; got != want {
		t.Errorf("memCap(100 MiB, default) = %d, want %d", got, want)
	}
	if got, want := memCap(100<<20, 64<<20), uint64(100<<20+64<<20+dataSlack); got != want {
		t.Errorf("memCap(100 MiB, 64 MiB) = %d, want %d", got, want)
	}
}

// TestMemWatch: the watch where the kernel caps nothing (macOS, Windows)
// samples once a tick and ends the process at the first sample past the
// cap, never at one at or under it; it stops when told. Ticks are sent
// by hand: nothing here depends on time.
func TestMemWatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []uint64
		exitAt  int // the tick whose sample ends it; -1 for none
	}{
		{"under the cap", []uint64{10, 50, 99, 100}, -1},
		{"past it at the third", []uint64{10, 50, 101, 40}, 2},
		{"past it at once", []uint64{5000}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tick, done, exited := make(chan time.Time), make(chan struct{}), make(chan string, 1)
			read := 0
			w := memWatch{limit: 100 << 20, read: func() uint64 { read++; return tc.samples[read-1] << 20 }, exit: func(r string) { exited <- r }}
			stopped := make(chan struct{})
			go func() { w.run(tick, done); close(stopped) }()
			for i := range tc.samples {
				tick <- time.Time{}
				if i == tc.exitAt {
					if r := <-exited; !strings.Contains(r, "memory limit exceeded") {
						t.Errorf("exit reason %q", r)
					}
					<-stopped // it stops after exiting
					return
				}
			}
			close(done)
			<-stopped
			select {
			case r := <-exited:
				t.Errorf("exited under the cap: %q", r)
			default:
			}
			if read != len(tc.samples) {
				t.Errorf("read %d samples for %d ticks", read, len(tc.samples))
			}
		})
	}
}
