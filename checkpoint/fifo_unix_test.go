//go:build unix

package checkpoint

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFIFOIsUnknown: a FIFO a command made where a file was is judged
// without waiting for a writer, and never read.
func TestFIFOIsUnknown(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	r := NewRecorder(st, []string{dir})
	r.Begin()
	r.BeforeWrite(p)
	os.Remove(p)
	os.WriteFile(p, []byte("now a file"), 0o644)
	changes, err := end(r)
	if err != nil || len(changes) != 1 || !changes[0].Before.Unknown {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	if got := Now(p); got.Unknown || got.Hash != Hash([]byte("now a file")) {
		t.Errorf("Now %+v", got)
	}
}
