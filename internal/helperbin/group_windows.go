package helperbin

import (
	"os"
	"syscall"
)

// GroupAttr is SysProcAttr: Windows has no process groups to kill whole,
// and KillGroup ends the helper alone.
func GroupAttr() *syscall.SysProcAttr { return SysProcAttr() }

// KillGroup kills the helper p.
func KillGroup(p *os.Process) { _ = p.Kill() }
