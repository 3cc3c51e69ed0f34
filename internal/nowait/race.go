//go:build linux && race

package nowait

import "syscall"

// raceSyncRead tells the race detector what a read through syscall.Read
// tells it: that this read follows the writes to the descriptor (the
// syscall package orders them on a variable of its own, which only its
// own calls reach). A read of nothing does that, in race builds only.
func raceSyncRead(fd uintptr) { syscall.Read(int(fd), nil) }

// raceSyncWrite is raceSyncRead's other half, made before a raw write:
// what came before the write happens before a read through syscall.Read
// of what it wrote. A write of nothing does that (a pipe or a stream
// socket takes it without waiting), in race builds only.
func raceSyncWrite(fd uintptr) { syscall.Write(int(fd), nil) }
