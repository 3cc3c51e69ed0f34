//go:build unix

package main

import "syscall"

// capMemory caps the process's data segment (RLIMIT_DATA) at max bytes.
// macOS accepts the limit but does not enforce it.
func capMemory(max uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: max, Max: max})
}
