//go:build unix

package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadConfig: only a regular file of at most a MiB is read; a FIFO
// (which would block the open until a writer came), a device and a
// larger file are refused at once.
func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, maxSettingsBytes+1), 0o600)
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte(`{"permissions":{}}`), 0o600)
	for _, tc := range []struct {
		name, path, err string
	}{
		{"a regular file", ok, ""},
		{"a FIFO", fifo, "not a regular file"},
		{"a device", "/dev/zero", "not a regular file"},
		{"a folder", dir, "not a regular file"},
		{"too large", big, "larger than"},
		{"missing", filepath.Join(dir, "none"), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadConfig(tc.path); done <- err }()
			select {
			case err := <-done:
				if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
					t.Errorf("ReadConfig: %v, want %q", err, tc.err)
				}
				if tc.name == "missing" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a missing file: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadConfig blocked")
			}
		})
	}
}
