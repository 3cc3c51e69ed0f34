//go:build linux

package nowait

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// NewReader returns a reader of f that waits for input in the runtime's
// poller instead of in a thread blocked in read(2), and reads with a raw
// read(2) that cannot block, so that neither the wait nor the read wakes
// the runtime's monitor (see the package doc). It applies when f is a
// pipe or a stream socket, which it puts in non-blocking mode: restore
// puts back the mode f had, and is to be called exactly once, when
// nothing reads any more (the mode belongs to the open file, which a
// process that started this one may share); it also closes the reader.
// For anything else it returns f itself and a restore that does nothing.
// f stays open, and is not to be read while the reader is.
func NewReader(f *os.File) (r io.Reader, restore func()) {
	nothing := func() {}
	raw, err := f.SyscallConn()
	if err != nil {
		return f, nothing
	}
	// The reader reads a duplicate of its own (its File closes that, not
	// f's), which shares the open file and so the mode.
	dup, flags := -1, 0
	_ = raw.Control(func(d uintptr) {
		if kindOf(int(d)) == kindOther {
			return
		}
		fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, d, syscall.F_GETFL, 0)
		nd, _, e2 := syscall.Syscall(syscall.SYS_FCNTL, d, syscall.F_DUPFD_CLOEXEC, 0)
		if e == 0 && e2 == 0 {
			dup, flags = int(nd), int(fl)
		} else if e2 == 0 {
			syscall.Close(int(nd))
		}
	})
	if dup < 0 {
		return f, nothing
	}
	wasNonblocking := flags&syscall.O_NONBLOCK != 0
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return f, nothing
	}
	// A File made of a non-blocking descriptor waits in the poller.
	pf := os.NewFile(uintptr(dup), f.Name())
	praw, err := pf.SyscallConn()
	if err != nil {
		syscall.SetNonblock(dup, wasNonblocking)
		pf.Close()
		return f, nothing
	}
	return &reader{f: pf, raw: praw}, func() {
		_ = praw.Control(func(d uintptr) { syscall.SetNonblock(int(d), wasNonblocking) })
		pf.Close() // a Read still waiting ends with an error
	}
}

// reader reads a non-blocking pipe or socket raw, waiting in the poller.
type reader struct {
	f   *os.File // a duplicate of the descriptor read
	raw syscall.RawConn
}

// rawReads counts the reads a reader made (tests).
var rawReads atomic.Int64

func (r *reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno, err := ReadRaw(r.raw, p)
	rawReads.Add(1)
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// ReadRaw reads into p (not empty) from the non-blocking descriptor of rc
// with a raw read(2), waiting in the runtime's poller while there is
// nothing to read. It returns what read(2) returned: n bytes (0 at the
// end of input), or errno; err is the poller's (the descriptor closed).
func ReadRaw(rc syscall.RawConn, p []byte) (n int, errno syscall.Errno, err error) {
	err = rc.Read(func(fd uintptr) bool {
		for {
			m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // nothing yet: wait in the poller
			}
			n, errno = int(m), e
			if e == 0 && m > 0 {
				raceSyncRead(fd)
			}
			return true
		}
	})
	return n, errno, err
}
