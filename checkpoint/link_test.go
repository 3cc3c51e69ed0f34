package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLinksBetweenTurns: a command that changes a file an earlier turn
// left gets that turn's result as its pre-image when the file was
// still as the turn left it, so undoing both turns restores it; when
// someone changed it in between, the link is missing and the rewind
// asks.
func TestLinksBetweenTurns(t *testing.T) {
	for _, between := range []bool{false, true} {
		t.Run(map[bool]string{false: "untouched between the turns", true: "edited between the turns"}[between], func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			f := filepath.Join(dir, "notes.txt")
			must(t, os.WriteFile(f, []byte("orig\n"), 0o644))
			st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
			r := NewRecorder(st, []string{dir})
			t1 := recordTurn(t, r, map[string]string{f: "agent\n"}, nil)
			if between {
				must(t, os.WriteFile(f, []byte("MY OWN WORK\n"), 0o644))
			}
			t2 := recordTurn(t, r, nil, func() {
				af, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
				must(t, err)
				af.WriteString("appended\n")
				af.Close()
			})
			if len(t2) != 1 || t2[0].Before.Unknown == !between {
				t.Fatalf("turn 2 %+v", t2)
			}
			rw := Plan([][]Change{t1, t2}, Now)
			if between {
				if len(rw.Conflicts) != 1 || len(rw.Restore) != 0 {
					t.Fatalf("plan %+v, want the file as a conflict", rw)
				}
				return
			}
			if len(rw.Restore) != 1 || len(rw.Conflicts) != 0 {
				t.Fatalf("plan %+v, want the file restored", rw)
			}
			if _, failed := Apply(st, rw.Restore, nil); len(failed) != 0 {
				t.Fatal(failed)
			}
			if b, _ := os.ReadFile(f); string(b) != "orig\n" {
				t.Errorf("notes.txt = %q", b)
			}
			// Undoing turn 2 alone takes its linked pre-image, stored.
			must(t, os.WriteFile(f, []byte("agent\nappended\n"), 0o644))
			rw = Plan([][]Change{t2}, Now)
			if _, failed := Apply(st, rw.Restore, nil); len(failed) != 0 || len(rw.Restore) != 1 {
				t.Fatalf("plan %+v failed %v", rw, failed)
			}
			if b, _ := os.ReadFile(f); string(b) != "agent\n" {
				t.Errorf("notes.txt = %q after undoing turn 2", b)
			}
		})
	}
}

// TestSkipsStateFolder: the state folder inside a root (its logs, the
// blobs the store keeps there) is neither walked nor recorded.
func TestSkipsStateFolder(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := filepath.Join(dir, "state")
	st, err := OpenStore(filepath.Join(state, "checkpoints"))
	must(t, err)
	a := filepath.Join(dir, "a.txt")
	must(t, os.WriteFile(a, []byte("precious\n"), 0o644))
	r := NewRecorder(st, []string{dir}, state)
	changes := recordTurn(t, r, map[string]string{a: "agent\n", filepath.Join(state, "sess.jsonl"): "log\n"}, func() {
		must(t, os.WriteFile(filepath.Join(state, "sess.title"), []byte("t"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "made"), []byte("m"), 0o644))
	})
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	slices.Sort(paths)
	if want := []string{a, filepath.Join(dir, "made")}; !slices.Equal(paths, want) {
		t.Errorf("changes %v, want %v", paths, want)
	}
	for p := range Walk([]string{dir}, state) {
		if strings.HasPrefix(p, state) {
			t.Errorf("the walk entered the skipped folder: %s", p)
		}
	}
	rw := Plan([][]Change{changes}, Now)
	if _, failed := Apply(st, rw.Restore, nil); len(failed) != 0 {
		t.Fatal(failed)
	}
	if b, _ := os.ReadFile(a); string(b) != "precious\n" {
		t.Errorf("a.txt = %q", b)
	}
}

// TestCommandOutputNotStored: the result of a file a command made is
// not kept in the store (a build's output would fill it); the result of
// a file the turn wrote is (a later turn's link needs it).
func TestCommandOutputNotStored(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	r := NewRecorder(st, []string{dir})
	recordTurn(t, r, map[string]string{filepath.Join(dir, "w"): "written"}, func() {
		must(t, os.WriteFile(filepath.Join(dir, "made"), []byte("build output"), 0o644))
	})
	if _, err := st.Get(Hash([]byte("build output"))); err == nil {
		t.Error("a command's new file was stored")
	}
	if _, err := st.Get(Hash([]byte("written"))); err != nil {
		t.Errorf("a written file's result was not stored: %v", err)
	}
}
