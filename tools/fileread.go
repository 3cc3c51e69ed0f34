//go:build unix

package tools

import (
	"errors"
	"io"
	"io/fs"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// fileReader reads a local file through its bare descriptor. os.Open
// costs six system calls on Linux for a regular file (it tries, and fails,
// to put the file on the runtime's poller, switching O_NONBLOCK on and off
// around the attempt); this costs one, which is a tenth of a read's.
type fileReader struct {
	fd     int
	path   string
	eof    bool // a read found the end: later ones say so without asking
	closed atomic.Bool
}

// openFile opens name for reading; errors and the reader name path (name
// may be a /proc/self/fd link to it). O_NONBLOCK makes a FIFO that
// replaced the file after it was checked fail its reads instead of
// hanging the call; for a regular file the flag changes nothing.
func openFile(name, path string) (*fileReader, error) {
	fd, err := openRetry(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &fileReader{fd: fd, path: path}, nil
}

// Read implements io.Reader.
func (f *fileReader) Read(p []byte) (int, error) {
	if f.closed.Load() {
		return 0, &fs.PathError{Op: "read", Path: f.path, Err: fs.ErrClosed}
	}
	if len(p) == 0 {
		return 0, nil
	}
	if f.eof {
		return 0, io.EOF
	}
	for {
		n, err := unix.Read(f.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0:
			f.eof = true
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close implements io.Closer; only the first call closes the descriptor
// (a second must not close whatever reused its number).
func (f *fileReader) Close() error {
	if f.closed.Swap(true) {
		return &fs.PathError{Op: "close", Path: f.path, Err: fs.ErrClosed}
	}
	if err := unix.Close(f.fd); err != nil && !errors.Is(err, unix.EINTR) {
		return &fs.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}

// openRetry is open(2) retried on EINTR.
func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
