package jsvm

import (
	"io"

	"golang.org/x/sys/unix"
)

// limitData caps the process's private writable memory (RLIMIT_DATA: the
// Go heap's arenas, stacks) at what it maps now (VmData, read from status,
// the process's /proc/self/status opened before it was confined) plus the
// run's heap headroom (the default when zero) and dataSlack. One
// allocation past it (a native built-in that builds a huge value in one
// step, which the heap guard's sampling can miss) then fails at once: the
// runtime exits with "out of memory", and the bridge reports worker-exit.
// The runner is a process per run, so the cap ends only this run. A nil
// status (a test's Serve) caps nothing.
func limitData(status io.ReaderAt, headroom uint64) error {
	if status == nil {
		return nil
	}
	used, err := vmData(status)
	if err != nil {
		return err
	}
	lim := memCap(used, headroom)
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err != nil {
		return err
	}
	if cur.Max < lim {
		lim = cur.Max // never raise it: an unprivileged process cannot
	}
	return unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: lim, Max: lim})
}
