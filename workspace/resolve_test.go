//go:build linux

package workspace

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestResolve_KernelAgreesWithWalk: the kernel's answers give what the
// component walk (EvalSymlinks) gives for every existing path, and for a
// missing one with no symlink on the way, and stand aside for the paths
// only the walk can judge.
func TestResolve_KernelAgreesWithWalk(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	os.WriteFile(mk("real/dir/file.go"), []byte("x"), 0o644)
	os.WriteFile(mk("real/with space/é.txt"), []byte("x"), 0o644)
	os.WriteFile(mk("real/gone (deleted)"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(root, "real"), mk("abs-link"))
	os.Symlink("real/dir", mk("rel-link"))
	os.Symlink("../abs-link/dir/file.go", mk("chain/file-link"))
	os.Symlink("nowhere", mk("dangling"))
	for _, tc := range []struct {
		name, rel string
		kernel    bool // the shortcut answers (else the walk does)
	}{
		{"plain file", "real/dir/file.go", true},
		{"directory", "real/dir", true},
		{"absolute symlink to a directory", "abs-link/dir/file.go", true},
		{"relative symlink", "rel-link/file.go", true},
		{"chain of symlinks", "chain/file-link", true},
		{"spaces and non-ASCII", "real/with space/é.txt", true},
		{"dot-dot after a symlink", "rel-link/../dir/file.go", true},
		{"missing file", "real/dir/new.go", true},
		{"missing folder and file", "real/new/new.go", true},
		{"missing file past a symlink", "abs-link/dir/new.go", false},
		{"missing file past a relative symlink", "rel-link/new.go", false},
		{"dangling symlink", "dangling", false},
		{"a name under a dangling symlink", "dangling/new.go", false},
		{"a name /proc's answer would mimic, no symlink on the way", "real/gone (deleted)", true},
		{"a name /proc's answer would mimic, through a symlink", "abs-link/gone (deleted)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := root + "/" + tc.rel // not Join: it would clean the dot-dot away
			got, ok := resolveOpen(p)
			if ok != tc.kernel {
				t.Fatalf("resolveOpen(%q) answered %v, want %v (%q)", tc.rel, ok, tc.kernel, got)
			}
			want, err := filepath.EvalSymlinks(p)
			if ok && err == nil && got != want {
				t.Errorf("resolveOpen(%q) = %q, the walk says %q (%v)", tc.rel, got, want, err)
			}
			if err == nil && Resolve(p) != want {
				t.Errorf("Resolve(%q) = %q, want %q", tc.rel, Resolve(p), want)
			}
			if walk := resolveWalk(p, 0); Resolve(p) != walk {
				t.Errorf("Resolve(%q) = %q, the walk alone says %q", tc.rel, Resolve(p), walk)
			}
		})
	}
}

// TestOpenPlain: the symlink-free open answers only for an absolute, clean
// path without a symlink on it, the path then naming the file itself.
func TestOpenPlain(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, "real", "dir"), 0o755)
	os.WriteFile(filepath.Join(root, "real", "dir", "f.go"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link"))
	os.Symlink("f.go", filepath.Join(root, "real", "dir", "last"))
	for _, tc := range []struct {
		name, path string
		ok         bool
	}{
		{"plain file", root + "/real/dir/f.go", true},
		{"plain directory", root + "/real/dir", true},
		{"symlink in the middle", root + "/link/dir/f.go", false},
		{"symlink last", root + "/real/dir/last", false},
		{"relative", "real/dir/f.go", false},
		{"not clean", root + "/real/dir/../dir/f.go", false},
		{"missing", root + "/real/dir/none.go", false},
		{"a magic link", "/proc/self/exe", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd, err := openPlain(tc.path, 0)
			ok := err == nil
			if ok {
				defer unix.Close(fd)
			}
			if ok != tc.ok {
				t.Fatalf("openPlain(%q) = %v, want %v", tc.path, ok, tc.ok)
			}
			if ok {
				if real, _ := fdPath("/proc/self/fd/" + strconv.Itoa(fd)); real != tc.path {
					t.Errorf("opened %q, /proc says %q", tc.path, real)
				}
			}
		})
	}
}

// TestResolveAsWritten: a path is resolved as the kernel opens it, each
// ".." taken after the symlink before it.
func TestResolveAsWritten(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(outside, "deep"), 0o755)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(dir, "sub", "a..b"), 0o755)
	os.Symlink(filepath.Join(outside, "deep"), filepath.Join(dir, "out"))
	ws, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"out/../x", outside + "/x"},
		{"out/../../x", filepath.Dir(outside) + "/x"},
		{"out/./f", outside + "/deep/f"},
		{"sub/../x", dir + "/x"},
		{"sub/a..b/../x", dir + "/sub/x"},
		{"sub/a..b/f", dir + "/sub/a..b/f"},
		{"missing/../x", dir + "/x"},
		{dir + "/out/../x", outside + "/x"},
		{"/..", "/"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := ws.ResolveAsWritten(tc.path); got != tc.want {
				t.Errorf("ResolveAsWritten(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}
