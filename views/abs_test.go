package views

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestEnv_AbsIsTheToolsPath: the path a card shows is the cleaned one the
// tools touch (workspace.Abs), so a partial approval of ws/./a.txt is of
// ws/a.txt.
func TestEnv_AbsIsTheToolsPath(t *testing.T) {
	root := filepath.FromSlash("/ws")
	if runtime.GOOS == "windows" {
		root = `C:\ws`
	}
	e := Env{Cwd: root}
	for _, tc := range []struct{ name, in, want string }{
		{"relative", "a.txt", filepath.Join(root, "a.txt")},
		{"dot segment", filepath.Join(root, ".") + string(filepath.Separator) + "a.txt", filepath.Join(root, "a.txt")},
		{"dot-dot", filepath.Join(root, "sub") + string(filepath.Separator) + ".." + string(filepath.Separator) + "a.txt", filepath.Join(root, "a.txt")},
		{"doubled separator", root + string(filepath.Separator) + string(filepath.Separator) + "a.txt", filepath.Join(root, "a.txt")},
		{"empty stays empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.abs(tc.in); got != tc.want {
				t.Fatalf("abs(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if runtime.GOOS == "windows" {
		if got := e.abs(`\other\b.txt`); got != `C:\other\b.txt` {
			t.Fatalf(`abs(\other\b.txt) = %q, want C:\other\b.txt (the workspace's drive)`, got)
		}
	}
}
