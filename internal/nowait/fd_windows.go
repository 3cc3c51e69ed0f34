package nowait

import "syscall"

func readFD(fd uintptr, p []byte) (int, error) { return syscall.Read(syscall.Handle(fd), p) }
