//go:build windows

package lsp

import (
	"os/exec"
	"time"
)

const time2s = 2 * time.Second

// terminate ends cmd's process (Windows has no process groups to signal;
// the supervisor's job object ends what it started).
func terminate(cmd *exec.Cmd, _ <-chan struct{}, _ time.Duration) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
