package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSweepSpills: the folders of dead processes are removed, live ones'
// kept; a spill root that is a symlink is not swept at all.
func TestSweepSpills(t *testing.T) {
	t.Run("dead and alive", func(t *testing.T) {
		tmp := t.TempDir()
		must(t, os.MkdirAll(filepath.Join(spillRoot(tmp), "999999999.42"), 0o700))
		must(t, os.MkdirAll(filepath.Join(spillRoot(tmp), processFolder()), 0o700))
		must(t, os.MkdirAll(filepath.Join(spillRoot(tmp), "notes"), 0o700))
		if n := sweepSpills(tmp); n != 1 {
			t.Errorf("removed %d, want 1", n)
		}
		entries, _ := os.ReadDir(spillRoot(tmp))
		if len(entries) != 2 {
			t.Errorf("left %v", entries)
		}
	})
	t.Run("a symlinked root", func(t *testing.T) {
		tmp, target := t.TempDir(), filepath.Join(t.TempDir(), "versions")
		must(t, os.MkdirAll(filepath.Join(target, "3.12"), 0o700)) // pid 3 is alive, with another start time
		must(t, os.MkdirAll(filepath.Join(target, "999999999.42"), 0o700))
		must(t, os.Symlink(target, spillRoot(tmp)))
		if n := sweepSpills(tmp); n != 0 {
			t.Errorf("removed %d through the symlink", n)
		}
		if entries, _ := os.ReadDir(target); len(entries) != 2 {
			t.Errorf("left %v", entries)
		}
	})
}

func processFolder() string {
	return fmt.Sprintf("%d.%d", os.Getpid(), startTicks(os.Getpid()))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
