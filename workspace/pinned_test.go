//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPinned_Recheck: a pinned file is named with its symlinks resolved,
// and Recheck holds a read made elsewhere to it: the same name, with no
// symlink on the way, leading to the same file.
func TestPinned_Recheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		path    string           // pinned, relative to the folder
		real    string           // Real, relative to the folder
		change  func(dir string) // after the pin, before the recheck
		wantErr string           // Recheck's, "" for none
	}{
		{name: "unchanged", path: "d/f.txt", real: "d/f.txt"},
		{name: "a link is pinned by its target", path: "link.txt", real: "d/f.txt"},
		{name: "the link flipped after the pin", path: "link.txt", real: "d/f.txt",
			change: func(dir string) { swapLink(t, filepath.Join(dir, "other.txt"), filepath.Join(dir, "link.txt")) }},
		{name: "written in place", path: "d/f.txt", real: "d/f.txt",
			change: func(dir string) { os.WriteFile(filepath.Join(dir, "d", "f.txt"), []byte("new\n"), 0o644) }},
		{name: "a folder on the way swapped for a symlink", path: "d/f.txt", real: "d/f.txt", wantErr: "no longer led to",
			change: func(dir string) {
				os.Rename(filepath.Join(dir, "d"), filepath.Join(dir, "d.moved"))
				os.Symlink(filepath.Join(dir, "e"), filepath.Join(dir, "d"))
			}},
		{name: "replaced by another file", path: "d/f.txt", real: "d/f.txt", wantErr: "no longer led to",
			change: func(dir string) { os.Rename(filepath.Join(dir, "other.txt"), filepath.Join(dir, "d", "f.txt")) }},
		{name: "removed", path: "d/f.txt", real: "d/f.txt", wantErr: "no longer led to",
			change: func(dir string) { os.Remove(filepath.Join(dir, "d", "f.txt")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			for _, f := range []string{"d/f.txt", "e/f.txt", "other.txt"} {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
			}
			os.Symlink(filepath.Join(dir, "d", "f.txt"), filepath.Join(dir, "link.txt"))
			var judged []string
			p, err := Pin(filepath.Join(dir, tc.path), func(real string) error { judged = append(judged, real); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(dir, tc.real); p.Real != want || len(judged) != 1 || judged[0] != want {
				t.Errorf("got Real %q, judged %q, want %q", p.Real, judged, want)
			}
			if tc.change != nil {
				tc.change(dir)
			}
			err = p.Recheck(tc.path, "read")
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestPin_Refuses: Pin fails with the system's error, ErrNotRegular, or
// check's, and a path its check refuses is refused whether or not it
// exists.
func TestPin_Refuses(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644)
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	denied := errors.New("denied by the rule")
	for _, tc := range []struct {
		name, path, wantErr string
		deny                bool
	}{
		{name: "missing", path: "nope.txt", wantErr: "no such file or directory"},
		{name: "a FIFO", path: "fifo", wantErr: "not a regular file"},
		{name: "a folder", path: ".", wantErr: "not a regular file"},
		{name: "denied", path: "f.txt", deny: true, wantErr: "denied by the rule"},
		{name: "denied and missing", path: "nope.txt", deny: true, wantErr: "denied by the rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Pin(filepath.Join(dir, tc.path), func(string) error {
				if tc.deny {
					return denied
				}
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// swapLink points link at target, atomically (a rename over the link).
func swapLink(t *testing.T, target, link string) {
	t.Helper()
	tmp := link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}
