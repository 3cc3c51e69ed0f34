//go:build windows

package lsp

import (
	"os/exec"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/winjob"
)

const time2s = 2 * time.Second

// jobs are the started servers' Job Objects (kill on close), by command.
var jobs sync.Map

// startTree starts cmd in a Job Object of its own: everything the server
// starts ends with it, and with this process, however it ends.
func startTree(cmd *exec.Cmd) error {
	job, err := winjob.New()
	if err != nil {
		return err
	}
	if err := job.Start(cmd); err != nil {
		job.Close()
		return err
	}
	jobs.Store(cmd, job)
	return nil
}

// released closes cmd's job once it has exited: what it left running
// ends.
func released(cmd *exec.Cmd) {
	if j, ok := jobs.LoadAndDelete(cmd); ok {
		_ = j.(*winjob.Job).Close()
	}
}

// terminate ends every process of cmd's job.
func terminate(cmd *exec.Cmd, _ <-chan struct{}, _ time.Duration) {
	if j, ok := jobs.Load(cmd); ok {
		_ = j.(*winjob.Job).Kill()
		return
	}
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
