package helperbin

import "syscall"

// GroupAttr is SysProcAttr with a process group of the helper's own,
// which KillGroup ends whole.
func GroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
