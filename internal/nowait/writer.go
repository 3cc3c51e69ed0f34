//go:build linux

package nowait

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Writer is an io.Writer to one file. Each Write first writes what it can
// without blocking and without the runtime's bookkeeping (see the package
// doc), then the rest, if any, through the *os.File, which waits for room
// and reports errors (EPIPE included) as it always does. Like an
// *os.File, it is safe for concurrent use: each Write's bytes go out
// together, whichever way. The pipe rule assumes this process is the
// pipe's only writer (the bridge's stdout, a helper's stdin): another one
// writing between the check and the write could make the raw write wait
// for the reader, and the process with it (see the package doc).
type Writer struct {
	f    *os.File
	raw  syscall.RawConn
	kind kind
	mu   sync.Mutex // one Write at a time: a raw prefix and its rest stay together
}

type kind uint8

const (
	kindOther  kind = iota // a terminal, a regular file, /dev/null: f.Write
	kindPipe               // raw when the pipe is empty and p fits its size
	kindSocket             // raw send with MSG_DONTWAIT
)

// New returns a Writer to f, or f itself when f is neither a pipe nor a
// stream socket (nothing is gained there). f's mode is left as it is.
func New(f *os.File) io.Writer {
	raw, err := f.SyscallConn()
	if err != nil {
		return f
	}
	k := kindOther
	if raw.Control(func(fd uintptr) { k = kindOf(int(fd)) }) != nil || k == kindOther {
		return f
	}
	return &Writer{f: f, raw: raw, kind: k}
}

// kindOf tells a pipe and a stream socket from anything else (a datagram
// socket keeps its message boundaries, which a partial write would
// break).
func kindOf(fd int) kind {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return kindOther
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return kindPipe
	case syscall.S_IFSOCK:
		if t, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE); err == nil && t == syscall.SOCK_STREAM {
			return kindSocket
		}
	}
	return kindOther
}

// rawWrites counts the bytes written raw (tests).
var rawWrites atomic.Int64

// Write writes all of p, or returns the *os.File's error for the part it
// could not write.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	if len(p) > 0 {
		_ = w.raw.Control(func(fd uintptr) { n = w.try(fd, p) })
	}
	if n == len(p) {
		return n, nil
	}
	m, err := w.f.Write(p[n:])
	return n + m, err
}

// try writes a prefix of p without blocking and returns its length
// (0 when it wrote nothing, for whatever reason: the *os.File then
// writes, and reports).
func (w *Writer) try(fd uintptr, p []byte) int {
	switch w.kind {
	case kindSocket:
		return sys(syscall.SYS_SENDTO, fd, p, syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL)
	case kindPipe:
		// An empty pipe has all its slots free (a reader frees each page
		// it empties), and a blocking write of at most the pipe's size
		// into it fills pages without waiting. Queued bytes would not
		// tell the free slots: half-read and half-written pages count
		// whole.
		var queued int32
		if _, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&queued))); e != 0 || queued != 0 {
			return 0
		}
		if len(p) > os.Getpagesize() { // a pipe's smallest size: one page
			size, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETPIPE_SZ, 0)
			if e != 0 || int(size) < len(p) {
				return 0
			}
		}
		return sys(syscall.SYS_WRITE, fd, p, 0)
	}
	return 0
}

// sys makes a raw write (SYS_WRITE) or send (SYS_SENDTO, with flags) of p
// and returns how much it wrote: 0 on any error, which the caller's
// fallback meets again and reports.
func sys(trap, fd uintptr, p []byte, flags uintptr) int {
	raceSyncWrite(fd) // before the bytes can be read
	for {
		var r uintptr
		var e syscall.Errno
		if trap == syscall.SYS_SENDTO {
			r, _, e = syscall.RawSyscall6(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), flags, 0, 0)
		} else {
			r, _, e = syscall.RawSyscall(trap, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		}
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0
		}
		rawWrites.Add(int64(r))
		return int(r)
	}
}
