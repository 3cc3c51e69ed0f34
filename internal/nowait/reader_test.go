//go:build linux

package nowait

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// nonblocking tells f's mode (without f.Fd, which would set it blocking).
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	raw, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags uintptr
	var e syscall.Errno
	raw.Control(func(fd uintptr) { flags, _, e = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) })
	if e != 0 {
		t.Fatal(e)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// rawPipe is a pipe as a parent gives it: flags (O_NONBLOCK or 0) as
// they are, where os.Pipe's is always non-blocking.
func rawPipe(t *testing.T, flags int) (r, w *os.File) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC|flags); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func TestNewReader(t *testing.T) {
	for _, tc := range []struct {
		name        string
		setUp       func(t *testing.T) (r, w *os.File)
		nonblocking bool // before, and so after restore
	}{
		{"pipe", func(t *testing.T) (*os.File, *os.File) { return rawPipe(t, 0) }, false},
		{"pipe, non-blocking already", func(t *testing.T) (*os.File, *os.File) { return rawPipe(t, syscall.O_NONBLOCK) }, true},
		{"socket", func(t *testing.T) (*os.File, *os.File) { return socketPair(t, false) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rf, w := tc.setUp(t)
			r, restore := NewReader(rf)
			if _, ok := r.(*reader); !ok {
				t.Fatalf("NewReader is %T, want *reader", r)
			}
			if !nonblocking(t, rf) {
				t.Error("the descriptor is still blocking")
			}
			before := rawReads.Load()
			go func() {
				time.Sleep(20 * time.Millisecond) // the reader waits first
				w.Write([]byte("first line\n"))
				time.Sleep(20 * time.Millisecond)
				w.Write([]byte("second line\n"))
				w.Close()
			}()
			got, err := io.ReadAll(r)
			if err != nil || string(got) != "first line\nsecond line\n" {
				t.Errorf("read %q, %v", got, err)
			}
			if n := rawReads.Load() - before; n < 3 {
				t.Errorf("%d raw reads for two lines and the end", n)
			}
			restore()
			if nonblocking(t, rf) != tc.nonblocking {
				t.Errorf("after restore the descriptor is non-blocking: %v, want %v as before", !tc.nonblocking, tc.nonblocking)
			}
		})
	}
}

func TestNewReaderOfOtherFiles(t *testing.T) {
	for _, tc := range otherFiles(t) {
		t.Run(tc.name, func(t *testing.T) {
			r, restore := NewReader(tc.f)
			defer restore()
			if r != io.Reader(tc.f) {
				t.Errorf("NewReader is %T, want the file itself", r)
			}
			if nonblocking(t, tc.f) {
				t.Error("the descriptor was made non-blocking")
			}
		})
	}
}
