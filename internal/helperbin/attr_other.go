//go:build !linux

package helperbin

import "syscall"

// SysProcAttr is a helper's process attributes. Without a parent-death
// signal (Linux's alone), a helper ends when its stdin reaches end of
// file, which the parent's end, however it went, brings about.
func SysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
