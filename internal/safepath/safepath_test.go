package safepath

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLookPath: a program is not taken from a relative $PATH entry, the
// temp folder, a distrusted folder or through a symlink into one; the
// next entry's is.
func TestLookPath(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	tmp := filepath.Join(base, "tmp")
	ws := filepath.Join(base, "ws")
	safe := filepath.Join(base, "usr", "bin")
	link := filepath.Join(base, "links")
	for _, d := range []string{tmp, filepath.Join(ws, ".venv", "bin"), safe, link} {
		os.MkdirAll(d, 0o755)
	}
	prog := func(dir string) string {
		p := filepath.Join(dir, "tool")
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		return p
	}
	want := prog(safe)
	planted := prog(filepath.Join(ws, ".venv", "bin"))
	prog(tmp)
	os.Symlink(planted, filepath.Join(link, "tool"))
	os.Symlink(filepath.Join(ws, ".venv", "bin"), filepath.Join(base, "venvlink"))
	t.Setenv("TMPDIR", tmp)
	Distrust(ws)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"a workspace's .venv/bin first", filepath.Join(ws, ".venv", "bin") + ":" + safe, want},
		{"the temp folder first", tmp + ":" + safe, want},
		{"a relative entry", "ws/.venv/bin:.:" + safe, want},
		{"a symlink into the workspace", link + ":" + safe, want},
		{"a folder that is a symlink into the workspace", filepath.Join(base, "venvlink") + ":" + safe, want},
		{"only planted ones", filepath.Join(ws, ".venv", "bin") + ":" + tmp, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			t.Chdir(base)
			got, err := LookPath("tool")
			if got != tc.want || (tc.want == "") != (err != nil) {
				t.Errorf("LookPath = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if got, _ := LookPath("./x/tool"); got != "./x/tool" {
		t.Errorf("a path: %q", got)
	}
}

// TestWritable: $PATH's folders in a root or the temp folder, symlinks
// resolved, and relative ones are the ones commands may write; "/" as a
// root does not make every folder one.
func TestWritable(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws, tmp := filepath.Join(base, "ws"), filepath.Join(base, "tmp")
	os.MkdirAll(filepath.Join(ws, ".venv", "bin"), 0o755)
	os.MkdirAll(filepath.Join(tmp, "bin"), 0o755)
	os.Symlink(filepath.Join(ws, ".venv", "bin"), filepath.Join(base, "venv"))
	t.Setenv("TMPDIR", tmp)
	venv := filepath.Join(ws, ".venv", "bin")
	for _, tc := range []struct {
		name  string
		roots []string
		path  string
		want  []string
	}{
		{"none", []string{ws}, "/usr/bin:/bin", nil},
		{"a virtualenv", []string{ws}, venv + ":/usr/bin", []string{venv}},
		{"the temp folder", []string{ws}, filepath.Join(tmp, "bin") + ":/usr/bin", []string{filepath.Join(tmp, "bin")}},
		{"relative and empty, once each", []string{ws}, ".::bin:/usr/bin:.", []string{".", "bin"}},
		{"a symlink into the root", []string{ws}, filepath.Join(base, "venv"), []string{filepath.Join(base, "venv")}},
		{"the whole disk as a root", []string{"/"}, "/usr/bin", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Writable(tc.path, tc.roots); !slices.Equal(got, tc.want) {
				t.Errorf("Writable = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDistrust: a folder given again (a session per prompt in one
// workspace) is kept once, and "/" never.
func TestDistrust(t *testing.T) {
	dir := t.TempDir()
	mu.Lock()
	before := len(distrusts)
	mu.Unlock()
	for range 3 {
		Distrust(dir, "/")
	}
	mu.Lock()
	defer mu.Unlock()
	if got := len(distrusts) - before; got != 1 {
		t.Errorf("%d folders added, want 1: %q", got, distrusts)
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		path, dir string
		want      bool
	}{
		{"/home/u", "/home/u", true},
		{"/home/u/.ssh/config", "/home/u", true},
		{"/home/u2", "/home/u", false},
		{"/home/u.old/x", "/home/u", false},
		{"/home", "/home/u", false},
		{"/etc/passwd", "/", true},
		{"/", "/", true},
	} {
		t.Run(tc.path+" in "+tc.dir, func(t *testing.T) {
			if got := Within(tc.path, tc.dir); got != tc.want {
				t.Errorf("Within(%q, %q) = %v", tc.path, tc.dir, got)
			}
		})
	}
}
