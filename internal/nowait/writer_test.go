//go:build linux

package nowait

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pipe is a pipe of size bytes (0: the system's default), non-blocking
// as os.Pipe makes it.
func pipe(t *testing.T, size int) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if size > 0 {
		setPipeSize(t, w, size)
	}
	return r, w
}

// setPipeSize sets the size of w's pipe (without w.Fd, which would set
// it blocking).
func setPipeSize(t *testing.T, w *os.File, size int) {
	t.Helper()
	raw, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var e syscall.Errno
	raw.Control(func(fd uintptr) {
		_, _, e = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, uintptr(size))
	})
	if e != 0 {
		t.Fatal(e)
	}
}

// socketPair is a connected pair of stream sockets, the writer's send
// buffer as small as the system allows when small.
func socketPair(t *testing.T, small bool) (r, w *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if small {
		syscall.SetsockoptInt(fds[1], syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// readAll reads want bytes from r in a goroutine, once start is closed
// (nil: at once), and returns them on the channel.
func readAll(r io.Reader, want int, start <-chan struct{}) <-chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		if start != nil {
			<-start
		}
		b := make([]byte, want)
		n, _ := io.ReadFull(r, b)
		ch <- b[:n]
	}()
	return ch
}

func text(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of the message\n", i)
	}
	return b.Bytes()[:n]
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		// setUp returns the two ends, with queued already in the pipe.
		setUp   func(t *testing.T) (r, w *os.File, queued string)
		n       int  // bytes written
		waits   bool // for the reader: it starts 50 ms into the write, else once the write is done
		wantRaw func(n int64) bool
	}{
		{"pipe, empty: raw", func(t *testing.T) (*os.File, *os.File, string) { r, w := pipe(t, 0); return r, w, "" }, 100, false,
			func(n int64) bool { return n == 100 }},
		{"pipe, empty, larger than a page but fits: raw", func(t *testing.T) (*os.File, *os.File, string) { r, w := pipe(t, 64<<10); return r, w, "" }, 40 << 10, false,
			func(n int64) bool { return n == 40<<10 }},
		{"pipe, as large as the pipe: raw", func(t *testing.T) (*os.File, *os.File, string) { r, w := pipe(t, 16<<10); return r, w, "" }, 16 << 10, false,
			func(n int64) bool { return n == 16<<10 }},
		{"pipe, larger than the pipe: through the file", func(t *testing.T) (*os.File, *os.File, string) { r, w := pipe(t, 16<<10); return r, w, "" }, 16<<10 + 1, true,
			func(n int64) bool { return n == 0 }},
		{"blocking pipe, as large as the pipe: raw", func(t *testing.T) (*os.File, *os.File, string) {
			r, w := rawPipe(t, 0)
			setPipeSize(t, w, 16<<10)
			return r, w, ""
		}, 16 << 10, false, func(n int64) bool { return n == 16<<10 }},
		{"blocking pipe, larger than the pipe: through the file", func(t *testing.T) (*os.File, *os.File, string) {
			r, w := rawPipe(t, 0)
			setPipeSize(t, w, 16<<10)
			return r, w, ""
		}, 16<<10 + 1, true, func(n int64) bool { return n == 0 }},
		{"pipe, not empty: through the file", func(t *testing.T) (*os.File, *os.File, string) {
			r, w := pipe(t, 0)
			w.Write([]byte("queued"))
			return r, w, "queued"
		}, 100, false, func(n int64) bool { return n == 0 }},
		{"socket: raw", func(t *testing.T) (*os.File, *os.File, string) { r, w := socketPair(t, false); return r, w, "" }, 100, false,
			func(n int64) bool { return n == 100 }},
		{"socket, its buffer full: through the file", func(t *testing.T) (*os.File, *os.File, string) {
			r, w := socketPair(t, true)
			var queued []byte
			for chunk := text(1 << 10); ; {
				n, err := syscall.SendmsgN(int(w.Fd()), chunk, nil, nil, syscall.MSG_DONTWAIT)
				if err != nil {
					break
				}
				queued = append(queued, chunk[:n]...)
			}
			return r, w, string(queued)
		}, 1 << 20, true, func(n int64) bool { return n == 0 }},
		{"socket, its buffer too small: raw as far as it goes, the rest waits", func(t *testing.T) (*os.File, *os.File, string) { r, w := socketPair(t, true); return r, w, "" }, 1 << 20, true,
			func(n int64) bool { return n > 0 && n < 1<<20 }},
	}
	// A raw write that blocks (a bug) holds its thread where the runtime
	// cannot stop it, and the next collection would wait for it forever,
	// freezing this test instead of failing it: no collection runs here.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, f, queued := tc.setUp(t)
			w := New(f)
			if _, ok := w.(*Writer); !ok {
				t.Fatalf("New is %T, want *Writer", w)
			}
			msg := text(tc.n)
			start := make(chan struct{})
			got := readAll(r, len(queued)+len(msg), start)
			before := rawWrites.Load()
			var n int
			var err error
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				n, err = w.Write(msg)
			}()
			if tc.waits {
				time.Sleep(50 * time.Millisecond)
				close(start)
				select {
				case <-wrote:
				case <-time.After(10 * time.Second):
					t.Fatal("the write did not end once the reader read")
				}
			} else {
				select {
				case <-wrote:
					close(start)
				case <-time.After(5 * time.Second):
					close(start)
					<-wrote
					t.Fatal("the write waited for the reader")
				}
			}
			raw := rawWrites.Load() - before
			if err != nil || n != len(msg) {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
			}
			if !tc.wantRaw(raw) {
				t.Errorf("%d of %d bytes written raw", raw, len(msg))
			}
			if read := <-got; !bytes.Equal(read, append([]byte(queued), msg...)) {
				t.Errorf("the reader got %d bytes, not the %d queued and written, in order", len(read), len(queued)+len(msg))
			}
		})
	}
}

// otherFile is a file that is neither a pipe nor a stream socket.
type otherFile struct {
	name string
	f    *os.File
}

// otherFiles are a regular file, a character device and a datagram
// socket, closed when the test ends.
func otherFiles(t *testing.T) []otherFile {
	regular, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	dgram := os.NewFile(uintptr(fds[0]), "dgram")
	t.Cleanup(func() { regular.Close(); null.Close(); dgram.Close(); syscall.Close(fds[1]) })
	return []otherFile{{"a regular file", regular}, {"a character device", null}, {"a datagram socket", dgram}}
}

func TestNewOfOtherFiles(t *testing.T) {
	for _, tc := range otherFiles(t) {
		t.Run(tc.name, func(t *testing.T) {
			if w := New(tc.f); w != io.Writer(tc.f) {
				t.Errorf("New is %T, want the file itself", w)
			}
		})
	}
}

func TestWriteBrokenPipe(t *testing.T) {
	r, f := pipe(t, 0)
	r.Close()
	n, err := New(f).Write([]byte("nobody reads this\n"))
	if n != 0 || !errors.Is(err, syscall.EPIPE) {
		t.Errorf("Write = %d, %v; want 0, EPIPE", n, err)
	}
}

// TestWriteConcurrent has writers share a socket whose buffer is too
// small for a line, read a little at a time, so that lines go out partly
// raw and partly through the file: no other line may come between the
// two parts of one. Another writer's raw send gets between the two parts
// only when buffer space opens at that moment, so unserialized writes
// show in some rounds and not others: ten rounds catch them.
func TestWriteConcurrent(t *testing.T) {
	for round := range 10 {
		if bad := writeConcurrently(t); bad != "" {
			t.Fatalf("round %d: %s", round, bad)
		}
	}
}

// writeConcurrently plays one round of TestWriteConcurrent and describes
// the first line another came into ("" when none did).
func writeConcurrently(t *testing.T) string {
	r, f := socketPair(t, true)
	w := New(f)
	const writers, lines, size = 8, 100, 9000
	got := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 700)
		for len(all) < writers*lines*size {
			n, err := r.Read(buf)
			if err != nil {
				break
			}
			all = append(all, buf[:n]...)
		}
		got <- all
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			line := append(bytes.Repeat([]byte{byte('a' + i)}, size-1), '\n')
			for range lines {
				if _, err := w.Write(line); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wrote := make(chan struct{})
	go func() { wg.Wait(); close(wrote) }()
	select {
	case <-wrote:
	case <-time.After(20 * time.Second):
		r.Close() // the writers end with EPIPE
		<-wrote
		t.Fatal("the writers did not end once the lines were read: more was written than the lines")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := <-got
	for i, line := range bytes.SplitAfter(all, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if len(line) != size || bytes.Count(line, line[:1]) != size-1 {
			return fmt.Sprintf("line %d is %d bytes, %q...: another line came between its parts", i, len(line), line[:min(len(line), 40)])
		}
	}
	return ""
}

// TestWriteOrdersForTheRaceDetector has a goroutine set a variable and
// then write raw, and the reader read what it wrote and then the
// variable: a read through the file follows the raw write for the race
// detector as it follows a write through the file (meaningful in race
// builds, which make test runs).
func TestWriteOrdersForTheRaceDetector(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setUp func(t *testing.T) (r, w *os.File)
	}{
		{"pipe", func(t *testing.T) (*os.File, *os.File) { return pipe(t, 0) }},
		{"socket", func(t *testing.T) (*os.File, *os.File) { return socketPair(t, false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, f := tc.setUp(t)
			w := New(f)
			shared := 0
			before := rawWrites.Load()
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				shared = 1
				w.Write([]byte("x"))
			}()
			var b [1]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				t.Fatal(err)
			}
			if shared != 1 {
				t.Errorf("the variable set before the write is %d", shared)
			}
			<-wrote
			if rawWrites.Load() == before {
				t.Error("the write did not go raw")
			}
		})
	}
}
