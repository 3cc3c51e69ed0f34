//go:build !linux

package jsvm

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"
)

// limitData caps the run's memory where the kernel will not: macOS does
// not enforce RLIMIT_DATA (nor RLIMIT_AS) and Windows has no such limit,
// so the runner watches itself. The cap is memCap of what the Go runtime
// maps now (runtime/metrics, its whole address space, not only the
// heap); the collector is told of it (debug.SetMemoryLimit, which makes
// it collect harder near the cap rather than let garbage count), and a
// watch every memEvery ends the process, as the kernel's cap would, once
// the runtime maps more (memWatch). Unlike RLIMIT_DATA it is sampled: one
// allocation made within a sample's time is held until the next, so a
// run can pass the cap by what it allocates in memEvery. The runner is a
// process per run and exits after it: the watch ends with the process.
func limitData(_ io.ReaderAt, headroom uint64) error {
	lim := memCap(mapped(), headroom)
	debug.SetMemoryLimit(int64(lim))
	t := time.NewTicker(memEvery)
	w := memWatch{limit: lim, read: mapped, exit: func(msg string) {
		fmt.Fprintln(os.Stderr, "dsh-code:", msg)
		os.Exit(memExit)
	}}
	go w.run(t.C, nil) // owned by the process: it ends with the run's exit
	return nil
}
