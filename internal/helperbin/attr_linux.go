package helperbin

import "syscall"

// SysProcAttr kills a helper with its parent, whatever way the parent
// ends.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// GroupAttr is SysProcAttr with a process group of the helper's own,
// which KillGroup ends whole.
func GroupAttr() *syscall.SysProcAttr {
	a := SysProcAttr()
	a.Setpgid = true
	return a
}
