package helperbin

import "syscall"

// SysProcAttr kills a helper with its parent, whatever way the parent
// ends.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
