package fsprobe

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Symlink makes link point at target and reports whether the system made
// it. Linux and macOS always do (a failure fails t); Windows may not:
// without the privilege os.Symlink fails, and under Wine 8.0 it answers
// nil and makes nothing (ROUGH_EDGES.md, "Windows and Wine").
func Symlink(t testing.TB, target, link string) bool {
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

// NeedLinks skips t, a case about symlinks, where the system made none.
func NeedLinks(t testing.TB, made bool) {
	t.Helper()
	if !made {
		t.Skip("this Windows makes no symlinks (Wine 8.0's os.Symlink makes nothing); the case is about one")
	}
}

// FoldsCase reports whether the file system of dir folds case: a folder
// FoldProbe made, foldprobe found.
func FoldsCase(t testing.TB, dir string) bool {
	t.Helper()
	probe := filepath.Join(dir, "FoldProbe")
	if err := os.Mkdir(probe, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	_, err := os.Stat(filepath.Join(dir, "foldprobe"))
	return err == nil
}
