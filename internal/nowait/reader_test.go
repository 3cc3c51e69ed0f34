package nowait

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if e != 0 {
		t.Fatal(e)
	}
	return flags&syscall.O_NONBLOCK != 0
}

func TestNewReader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setUp func(t *testing.T) (r, w *os.File)
	}{
		{"pipe", func(t *testing.T) (*os.File, *os.File) {
			// As a parent gives it: blocking (os.Pipe's would be pollable,
			// and its Fd would set it back to blocking).
			var fds [2]int
			if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
			t.Cleanup(func() { r.Close(); w.Close() })
			return r, w
		}},
		{"socket", func(t *testing.T) (*os.File, *os.File) { return socketPair(t, false) }},
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
			if nonblocking(t, rf) {
				t.Error("restore left the descriptor non-blocking")
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
