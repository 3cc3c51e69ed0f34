//go:build unix

package helperbin

import (
	"os"
	"syscall"
)

// KillGroup kills the process group p leads (started with GroupAttr):
// the helper and all it started.
func KillGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
