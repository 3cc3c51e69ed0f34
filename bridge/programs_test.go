package bridge

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSelfExe: the helper and supervisor are started from the running
// binary's own file, not from its path, which a command or an upgrade
// may have given to another.
func TestSelfExe(t *testing.T) {
	self, err := selfExe()
	if err != nil || self != "/proc/self/exe" {
		t.Fatalf("selfExe = %q, %v", self, err)
	}
	a, err1 := os.Stat(self)
	exe, _ := os.Executable()
	b, err2 := os.Stat(exe)
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		t.Errorf("%s is not this binary %s: %v %v", self, exe, err1, err2)
	}
}

// TestWritablePath: $PATH's folders inside a root, or relative, are the
// ones commands may write; a symlink into a root counts, "/" as a root
// does not make every folder one.
func TestWritablePath(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, ".venv", "bin"), 0o755)
	os.Symlink(filepath.Join(ws, ".venv", "bin"), filepath.Join(base, "venv"))
	for _, tc := range []struct {
		name  string
		roots []string
		path  string
		want  []string
	}{
		{"none", []string{ws}, "/usr/bin:/bin", nil},
		{"a virtualenv", []string{ws}, filepath.Join(ws, ".venv", "bin") + ":/usr/bin", []string{filepath.Join(ws, ".venv", "bin")}},
		{"relative and empty", []string{ws}, ".::bin:/usr/bin", []string{".", "bin"}},
		{"a symlink into the root", []string{ws}, filepath.Join(base, "venv"), []string{filepath.Join(base, "venv")}},
		{"the whole disk as a root", []string{"/"}, "/usr/bin", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := writablePath(tc.roots, tc.path); !slices.Equal(got, tc.want) {
				t.Errorf("writablePath = %q, want %q", got, tc.want)
			}
		})
	}
}
