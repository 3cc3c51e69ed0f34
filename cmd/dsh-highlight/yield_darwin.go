package main

import "syscall"

// yieldCPU lowers this process's priority (macOS keeps niceness per
// process).
func yieldCPU() error { return syscall.Setpriority(syscall.PRIO_PROCESS, 0, niceness) }
