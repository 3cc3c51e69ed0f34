//go:build unix

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// mirrorExit ends this process as the process whose Wait returned err
// ended: with its exit code, or by its signal.
func mirrorExit(err error) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			signal.Reset()
			_ = syscall.Kill(os.Getpid(), ws.Signal())
			time.Sleep(time.Second) // the signal ends the process
		}
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		os.Exit(126)
	}
	os.Exit(0)
}
