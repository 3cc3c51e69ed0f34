// Package proctest helps tests prove that processes run, or are gone.
package proctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RunVar is the environment variable that marks the processes of one test
// run: set when this package is initialised, to a value of this process's
// own unless a parent test process set it, and inherited by every process
// the tests start (their commands, the bridge's, and theirs). Two runs on
// one machine (two engineers' go test, or a package's tests run twice at
// once) start commands with the same marker; only a process that carries
// this run's value, or whose environment cannot be read, is this run's.
const RunVar = "DSH_PROCTEST_RUN"

var runEntry = func() []byte {
	if os.Getenv(RunVar) == "" {
		os.Setenv(RunVar, strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	}
	return []byte(RunVar + "=" + os.Getenv(RunVar))
}()

// ours reports whether the process pid belongs to this run (RunVar); a
// process whose environment cannot be read counts as this run's.
func ours(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
	if err != nil {
		return true
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, runEntry) {
			return true
		}
	}
	return false
}

// Running reports whether a process of this run (RunVar) whose command
// line contains marker (NUL-separated arguments, for example
// "sleep\x007791") runs now. It panics without /proc: then nothing can be
// proved either way.
func Running(marker string) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil || len(entries) == 0 {
		panic("proctest: /proc cannot be read")
	}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) && ours(e.Name()) {
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

// Sweep kills, when the test ends, every process of this run (RunVar)
// whose command line still holds one of the markers: a failed test (or a
// mutant that leaves its commands behind on purpose) must not leave
// processes that a later test would mistake for its own.
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
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) && ours(e.Name()) {
			killPID(pid)
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
