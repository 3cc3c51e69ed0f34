package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
)

func TestWorkspace_Contains(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(root, "ws")
	extra := filepath.Join(root, "extra")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws, extra, outside, filepath.Join(ws, "sub")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	linked := fsprobe.Symlink(t, outside, filepath.Join(ws, "escape"))
	linked = fsprobe.Symlink(t, filepath.Join(outside, "secret"), filepath.Join(ws, "secret-link")) && linked
	linked = fsprobe.Symlink(t, filepath.Join(ws, "sub"), filepath.Join(outside, "into-ws")) && linked
	// On a file system that folds case the upper-case spelling is the
	// workspace itself, and resolving it gives the real name.
	folds := fsprobe.FoldsCase(t, root)
	w, err := New(ws, extra)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       bool
	}{
		{"relative file", "a.txt", true},
		{"nested new file", "sub/new/deep.txt", true},
		{"the workspace itself", ".", true},
		{"absolute inside", filepath.Join(ws, "x"), true},
		{"additional directory", filepath.Join(extra, "y"), true},
		{"dot-dot out", "../outside/secret", false},
		{"dot-dot back in", "sub/../a.txt", true},
		{"absolute outside", "/etc/passwd", false},
		{"prefix sibling is not inside", filepath.Join(root, "ws-other/x"), false},
		{"symlinked directory pointing out", "escape/secret", false},
		{"symlinked file pointing out", "secret-link", false},
		{"new file under a symlink pointing out", "escape/new.txt", false},
		{"outside symlink pointing in", filepath.Join(outside, "into-ws", "f"), true},
		{"case trick", strings.ToUpper(ws) + "/a.txt", folds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "symlink") {
				fsprobe.NeedLinks(t, linked)
			}
			if got := w.Contains(tc.path); got != tc.want {
				t.Errorf("Contains(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	if _, err := New("relative"); err == nil {
		t.Errorf("relative workspace accepted")
	}
}
