// Package proctest helps tests prove that processes run, or are gone.
package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Running reports whether a process whose command line contains marker
// (NUL-separated arguments, for example "sleep\x007791") runs now. It
// panics without /proc: then nothing can be proved either way.
func Running(marker string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil || len(entries) == 0 {
		panic("proctest: /proc cannot be read")
	}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
			return true
		}
	}
	return false
}

// Gone reports whether no process matching marker is left, polling for up
// to ten seconds (a loaded two-core machine running the race-enabled suite
// has been seen to need more than two for a supervisor to end its tree).
func Gone(marker string) bool {
	for range 500 {
		if !Running(marker) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// Sweep kills, when the test ends, every process whose command line still
// holds one of the markers: a failed test (or a mutant that leaves its
// commands behind on purpose) must not leave processes that a later run
// of the same test would mistake for its own.
func Sweep(t interface{ Cleanup(func()) }, markers ...string) {
	t.Cleanup(func() {
		for _, m := range markers {
			kill(m)
		}
	})
}

func kill(marker string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// WriteExec writes data to path as an executable (mode 0755), holding
// syscall.ForkLock for reading while the file is open, and fails t if it
// cannot. A program a test writes and then runs must be written so: a
// process forked by another goroutine while the file is open for writing
// holds the descriptor until it execs, and running the file meanwhile
// fails with "text file busy" (ETXTBSY; golang.org/issue/22315).
func WriteExec(t testing.TB, path string, data []byte) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, data, 0o755)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}
