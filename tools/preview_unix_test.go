//go:build unix

package tools

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A pending write's preview never opens a FIFO (opening one would block
// until a writer came).
func TestPreview_FIFOIsNeverOpened(t *testing.T) {
	e := newEnv(t, LocalHost{})
	if err := syscall.Mkfifo(filepath.Join(e.dir, "f"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := e.preview("write", `{"file_path":"f","content":"x"}`); got != nil {
		t.Fatalf("preview of a FIFO: %+v", got.Diffs)
	}
}
