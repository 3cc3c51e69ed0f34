//go:build unix

package main

import "syscall"

// capMemory caps the process's data segment (RLIMIT_DATA) at maxMemory.
// macOS accepts the limit but does not enforce it.
func capMemory() error {
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: maxMemory, Max: maxMemory})
}
