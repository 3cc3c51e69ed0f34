//go:build unix

package proctest

import "syscall"

func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
