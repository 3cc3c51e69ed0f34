//go:build !linux

package nowait

import (
	"io"
	"os"
	"syscall"
)

// New returns f itself: the raw writes that spare the runtime's monitor
// are Linux's; elsewhere a plain write serves.
func New(f *os.File) io.Writer { return f }

// NewReader returns f itself and a restore that does nothing.
func NewReader(f *os.File) (io.Reader, func()) { return f, func() {} }

// ReadRaw reads into p (not empty) from the non-blocking descriptor of
// rc, waiting in the runtime's poller while there is nothing to read. It
// returns n bytes (0 at the end of input), or errno; err is the poller's.
func ReadRaw(rc syscall.RawConn, p []byte) (n int, errno syscall.Errno, err error) {
	err = rc.Read(func(fd uintptr) bool {
		m, e := readFD(fd, p)
		var en syscall.Errno
		if e != nil {
			en, _ = e.(syscall.Errno)
			if en == syscall.EAGAIN {
				return false
			}
			if en == 0 {
				en = syscall.EIO
			}
		}
		n, errno = max(m, 0), en
		return true
	})
	return n, errno, err
}
