//go:build !linux && !windows

package nowait

import "syscall"

func readFD(fd uintptr, p []byte) (int, error) { return syscall.Read(int(fd), p) }
