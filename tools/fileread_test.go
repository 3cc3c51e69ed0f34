//go:build unix

package tools

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestFileReader(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("line of text\n", 10_000) // several reads' worth
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte(text), 0o644)
	t.Run("reads the whole file, then EOF", func(t *testing.T) {
		f, err := openFile(p, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		if err != nil || string(got) != text {
			t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(text))
		}
		if n, err := f.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("after the end: %d, %v", n, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Read(make([]byte, 8)); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("read after close: %v", err)
		}
		if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("second close: %v", err)
		}
	})
	t.Run("missing file is ErrNotExist", func(t *testing.T) {
		if _, err := openFile(filepath.Join(dir, "nope"), "nope"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("a FIFO does not hang the call", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := unix.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			f, err := openFile(fifo, fifo)
			if err == nil {
				_, err = io.ReadAll(f)
				f.Close()
			}
			done <- err
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("opening a FIFO without a writer blocked")
		}
	})
	t.Run("the descriptor is not inherited", func(t *testing.T) {
		f, err := openFile(p, p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		flags, err := unix.FcntlInt(uintptr(f.fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC == 0 {
			t.Errorf("FD_CLOEXEC not set (%#x, %v)", flags, err)
		}
	})
}
