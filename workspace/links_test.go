package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// symlink makes link point at target and reports whether the system
// made it. Linux and macOS always do (a failure fails t); Windows may
// not: without the privilege os.Symlink fails, and under Wine 8.0 it
// answers nil and makes nothing (ROUGH_EDGES.md, "Windows and Wine").
func symlink(t *testing.T, target, link string) bool {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		if fi, lerr := os.Lstat(link); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	if runtime.GOOS != "windows" {
		t.Fatalf("symlink %s -> %s: %v", link, target, err)
	}
	return false
}

// noLinks skips t, a case about symlinks, where the system made none.
func noLinks(t *testing.T, made bool) {
	t.Helper()
	if !made {
		t.Skip("this Windows makes no symlinks (Wine 8.0's os.Symlink makes nothing); the case is about one")
	}
}

// foldsHere reports whether the file system of dir folds case: Secrets
// made, secrets found.
func foldsHere(t *testing.T, dir string) bool {
	t.Helper()
	probe := filepath.Join(dir, "FoldProbe")
	if err := os.Mkdir(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	_, err := os.Stat(filepath.Join(dir, "foldprobe"))
	return err == nil
}
