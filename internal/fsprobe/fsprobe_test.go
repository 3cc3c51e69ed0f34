package fsprobe

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestProbes(t *testing.T) {
	dir := t.TempDir()
	t.Run("a symlink made points at its target", func(t *testing.T) {
		target := filepath.Join(dir, "target")
		if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link")
		made := Symlink(t, target, link)
		if runtime.GOOS != "windows" && !made {
			t.Fatal("no symlink made on a Unix system")
		}
		if made {
			if got, err := os.Readlink(link); err != nil || got != target {
				t.Fatalf("Readlink = %q, %v; want %q", got, err, target)
			}
		}
	})
	t.Run("case folding matches the platform's default", func(t *testing.T) {
		folds := FoldsCase(t, dir)
		if runtime.GOOS == "linux" && folds {
			t.Fatal("a Linux temp folder reported as folding case")
		}
		if runtime.GOOS == "windows" && !folds {
			t.Fatal("a Windows temp folder reported as not folding case")
		}
		if _, err := os.Stat(filepath.Join(dir, "FoldProbe")); !os.IsNotExist(err) {
			t.Fatalf("the probe folder was left behind: %v", err)
		}
	})
}
