package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// recordTurn runs one recorded turn under dir: writes are the turn's
// edits (pre-images taken), then command runs as a command would.
func recordTurn(t *testing.T, r *Recorder, writes map[string]string, command func()) []Change {
	t.Helper()
	r.Begin()
	for p, content := range writes {
		r.BeforeWrite(p)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if command != nil {
		r.BeforeCommand()
		command()
	}
	changes, err := end(r)
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestTypeChanges: a file a turn replaced by a folder, and a folder it
// replaced by a file, are both undone without a conflict; a folder in
// the way that holds someone's file stays, and so does that file.
func TestTypeChanges(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(dir string)
		writes  func(dir string) map[string]string
		command func(t *testing.T, dir string)
		after   func(t *testing.T, dir string) // between the turn and the rewind
		want    map[string]string              // path → content after the rewind ("" absent)
		failed  int
	}{
		{"file replaced by a folder",
			func(dir string) { os.WriteFile(filepath.Join(dir, "f"), []byte("orig"), 0o644) },
			func(dir string) map[string]string { return map[string]string{filepath.Join(dir, "f"): "agent"} },
			func(t *testing.T, dir string) {
				must(t, os.Remove(filepath.Join(dir, "f")))
				must(t, os.MkdirAll(filepath.Join(dir, "f", "sub", "empty"), 0o755))
				must(t, os.WriteFile(filepath.Join(dir, "f", "sub", "y"), []byte("x"), 0o644))
			},
			nil, map[string]string{"f": "orig"}, 0},
		{"folder replaced by a file",
			func(dir string) {
				os.Mkdir(filepath.Join(dir, "d"), 0o755)
				os.WriteFile(filepath.Join(dir, "d", "x"), []byte("orig"), 0o644)
			},
			func(dir string) map[string]string { return map[string]string{filepath.Join(dir, "d", "x"): "agent"} },
			func(t *testing.T, dir string) {
				must(t, os.RemoveAll(filepath.Join(dir, "d")))
				must(t, os.WriteFile(filepath.Join(dir, "d"), []byte("file"), 0o644))
			},
			nil, map[string]string{"d/x": "orig"}, 0},
		{"someone's file in the folder in the way stays",
			func(dir string) { os.WriteFile(filepath.Join(dir, "f"), []byte("orig"), 0o644) },
			func(dir string) map[string]string { return map[string]string{filepath.Join(dir, "f"): "agent"} },
			func(t *testing.T, dir string) {
				must(t, os.Remove(filepath.Join(dir, "f")))
				must(t, os.Mkdir(filepath.Join(dir, "f"), 0o755))
			},
			func(t *testing.T, dir string) {
				must(t, os.WriteFile(filepath.Join(dir, "f", "mine"), []byte("mine"), 0o644))
			},
			map[string]string{"f/mine": "mine"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			tt.setup(dir)
			st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
			r := NewRecorder(st, []string{dir})
			changes := recordTurn(t, r, tt.writes(dir), func() { tt.command(t, dir) })
			if tt.after != nil {
				tt.after(t, dir)
			}
			rw := Plan([][]Change{changes}, Now)
			if len(rw.Conflicts) != 0 || len(rw.Unknown) != 0 {
				t.Fatalf("conflicts %+v unknown %v; changes %+v", rw.Conflicts, rw.Unknown, changes)
			}
			_, failed := Apply(st, rw.Restore, nil)
			if len(failed) != tt.failed {
				t.Errorf("failed %v, want %d", failed, tt.failed)
			}
			for _, err := range failed {
				if !errors.Is(err, ErrNotEmpty) {
					t.Errorf("failed for %v, want ErrNotEmpty", err)
				}
			}
			for name, want := range tt.want {
				if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(b) != want {
					t.Errorf("%s = %q, %v; want %q", name, b, err, want)
				}
			}
		})
	}
}

// TestNowOfTypes: a folder is Dir; a path under a file is Absent.
func TestNowOfTypes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	if got := Now(dir); !got.Dir {
		t.Errorf("Now(folder) = %+v", got)
	}
	if got := Now(filepath.Join(dir, "file", "under")); !got.Absent {
		t.Errorf("Now(file/under) = %+v", got)
	}
	if (Image{Dir: true}).Same(Image{Absent: true}) || (Image{Dir: true}).Same(img("")) {
		t.Error("a folder is the same as no file or an empty one")
	}
}
