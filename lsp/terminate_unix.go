//go:build !windows

package lsp

import (
	"os/exec"
	"syscall"
	"time"
)

const time2s = 2 * time.Second

// startTree starts cmd (its tree ends with terminate, or, under the
// supervisor, with the bridge).
func startTree(cmd *exec.Cmd) error { return cmd.Start() }

// released is called once cmd has exited.
func released(*exec.Cmd) {}

// terminate ends cmd's process tree: the supervisor is asked (SIGTERM:
// it kills every descendant, then itself); after grace, or without a
// supervisor, the process group is killed.
func terminate(cmd *exec.Cmd, exited <-chan struct{}, grace time.Duration) {
	if cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	if cmd.Process.Signal(syscall.SIGTERM) == nil {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-exited:
		case <-t.C:
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
