// Command dsh-code is Code Mode's runner: dsh-bridge starts one per
// run_code run and speaks to it over stdin and stdout (package coderun
// documents the protocol). It keeps esbuild and goja, their binary size
// and start-up, out of the bridge, and gives every run a
// process of its own: a heap limit that holds, and a kill that always
// works. It confines itself (Landlock: no files, no network) before it
// reads the program, and exits after the run's outcome.
//
// Install it next to dsh-bridge (go install ./cmd/...); without it,
// run_code fails with a message that says so.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/dsh-bridge/dsh-bridge/codemode/jsvm"
	"github.com/dsh-bridge/dsh-bridge/internal/confine"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "dsh-code takes no arguments: dsh-bridge starts it and speaks to it over stdin and stdout")
		os.Exit(2)
	}
	if err := serve(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dsh-code:", err)
		os.Exit(1)
	}
}

// serve confines the process, then serves one run. Its status file is
// opened first: the run's memory cap is measured from it, and no file can
// be opened once the process is confined.
func serve(in io.Reader, out, errs io.Writer) error {
	var status io.ReaderAt // nil where there is no /proc: no memory cap then
	if runtime.GOOS == "linux" {
		f, err := os.Open("/proc/self/status")
		if err != nil {
			return err
		}
		defer f.Close()
		status = f
	}
	if err := confine.Process(); err != nil {
		fmt.Fprintln(errs, "dsh-code: not confined:", err)
	}
	return jsvm.Serve(in, out, status)
}
