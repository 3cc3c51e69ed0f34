package safepath

import (
	"os"
	"path/filepath"
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
