package checkpoint

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

func img(content string) Image { return Image{Hash: Hash([]byte(content)), Mode: 0o644} }

func TestPlan(t *testing.T) {
	absent := Image{Absent: true}
	tests := []struct {
		name      string
		turns     [][]Change
		now       map[string]Image
		restore   []string
		conflicts []string
		unknown   []string
	}{
		{"restores what the turn left", [][]Change{{{Path: "a", Before: img("1"), After: img("2")}}},
			map[string]Image{"a": img("2")}, []string{"a"}, nil, nil},
		{"nothing to do at the pre-image", [][]Change{{{Path: "a", Before: img("1"), After: img("2")}}},
			map[string]Image{"a": img("1")}, nil, nil, nil},
		{"someone else's content is a conflict", [][]Change{{{Path: "a", Before: img("1"), After: img("2")}}},
			map[string]Image{"a": img("3")}, nil, []string{"a"}, nil},
		{"a created file changed since is a conflict", [][]Change{{{Path: "n", Before: absent, After: img("new")}}},
			map[string]Image{"n": img("mine")}, nil, []string{"n"}, nil},
		{"a created file is removed", [][]Change{{{Path: "n", Before: absent, After: img("new")}}},
			map[string]Image{"n": img("new")}, []string{"n"}, nil, nil},
		{"a file deleted since, that the turn made, needs nothing", [][]Change{{{Path: "n", Before: absent, After: img("new")}}},
			map[string]Image{"n": absent}, nil, nil, nil},
		{"a file the turn deleted, recreated by someone, is a conflict", [][]Change{{{Path: "d", Before: img("old"), After: absent}}},
			map[string]Image{"d": img("theirs")}, nil, []string{"d"}, nil},
		{"chains over turns go back to the oldest", [][]Change{
			{{Path: "a", Before: img("1"), After: img("2")}},
			{{Path: "a", Before: img("2"), After: img("3")}}},
			map[string]Image{"a": img("3")}, []string{"a"}, nil, nil},
		{"a change between two turns breaks the chain", [][]Change{
			{{Path: "a", Before: img("1"), After: img("2")}},
			{{Path: "a", Before: img("theirs"), After: img("3")}}},
			map[string]Image{"a": img("3")}, nil, []string{"a"}, nil},
		// A missing link may hide someone's edit between the turns.
		{"a command's change with no pre-image breaks the chain", [][]Change{
			{{Path: "a", Before: img("1"), After: img("2")}},
			{{Path: "a", Before: Image{Unknown: true}, After: img("3")}}},
			map[string]Image{"a": img("3")}, nil, []string{"a"}, nil},
		{"an unknown pre-image is never written", [][]Change{{{Path: "u", Before: Image{Unknown: true}, After: img("2")}}},
			map[string]Image{"u": img("2")}, nil, nil, []string{"u"}},
		{"a mode change alone is restored", [][]Change{{{Path: "x", Before: img("s"), After: Image{Hash: Hash([]byte("s")), Mode: 0o755}}}},
			map[string]Image{"x": {Hash: Hash([]byte("s")), Mode: 0o755}}, []string{"x"}, nil, nil},
		{"newest change first", [][]Change{
			{{Path: "a", Before: img("1"), After: img("2")}},
			{{Path: "b", Before: absent, After: img("b")}}},
			map[string]Image{"a": img("2"), "b": img("b")}, []string{"b", "a"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rw := Plan(tt.turns, func(p string) Image { return tt.now[p] })
			paths := func(steps []Step) []string {
				var out []string
				for _, s := range steps {
					out = append(out, s.Path)
				}
				return out
			}
			if got := paths(rw.Restore); !slices.Equal(got, tt.restore) {
				t.Errorf("restore %v, want %v", got, tt.restore)
			}
			if got := paths(rw.Conflicts); !slices.Equal(got, tt.conflicts) {
				t.Errorf("conflicts %v, want %v", got, tt.conflicts)
			}
			if !slices.Equal(rw.Unknown, tt.unknown) {
				t.Errorf("unknown %v, want %v", rw.Unknown, tt.unknown)
			}
		})
	}
}

// TestRecordAndRewind: a turn writes two files (one CRLF, one
// executable), a "command" creates a third and changes a fourth that
// existed; undoing restores the bytes and modes, deletes the new file
// and leaves the unknown one, reported.
func TestRecordAndRewind(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(dir, name), mode)
	}
	write("crlf.txt", "one\r\ntwo\r\n", 0o644)
	write("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write("other.txt", "before\n", 0o644)
	r := NewRecorder(st, []string{dir})
	r.Begin()
	r.BeforeWrite(filepath.Join(dir, "crlf.txt"))
	write("crlf.txt", "one\r\nTWO\r\n", 0o644)
	r.BeforeWrite(filepath.Join(dir, "crlf.txt")) // the second write keeps the first pre-image
	write("crlf.txt", "ONE\r\nTWO\r\n", 0o644)
	r.BeforeWrite(filepath.Join(dir, "run.sh"))
	write("run.sh", "#!/bin/sh\necho bye\n", 0o755)
	r.BeforeCommand()
	write("made.txt", "made by a command\n", 0o600)
	write("other.txt", "changed by a command, longer\n", 0o644)
	changes, err := end(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 4 {
		t.Fatalf("changes %+v", changes)
	}
	rw := Plan([][]Change{changes}, Now)
	if len(rw.Conflicts) != 0 || !slices.Equal(rw.Unknown, []string{resolve(filepath.Join(dir, "other.txt"))}) || len(rw.Restore) != 3 {
		t.Fatalf("plan %+v", rw)
	}
	restored, failed := Apply(st, rw.Restore, nil)
	if len(failed) != 0 || len(restored) != 3 {
		t.Fatalf("restored %v failed %v", restored, failed)
	}
	check := func(name, want string, mode os.FileMode) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(b, []byte(want)) {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm() != mode {
			t.Errorf("%s mode %v, want %v", name, fi.Mode().Perm(), mode)
		}
	}
	check("crlf.txt", "one\r\ntwo\r\n", 0o644)
	check("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	check("other.txt", "changed by a command, longer\n", 0o644)
	if _, err := os.Lstat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt is still there: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("the workspace holds %d entries, want 3 (no checkpoint data in it)", len(entries))
	}
}

func TestRecorderOutsideATurn(t *testing.T) {
	dir := t.TempDir()
	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	r := NewRecorder(st, []string{dir})
	r.BeforeWrite(filepath.Join(dir, "a"))
	r.BeforeCommand()
	called := false
	r.End(func([]Change, error) { called = true })
	r.Close()
	if called {
		t.Error("End outside a turn reported changes")
	}
}

// end ends r's turn and waits for its changes.
func end(r *Recorder) (changes []Change, err error) {
	r.End(func(c []Change, e error) { changes, err = c, e })
	r.Wait()
	return changes, err
}

func TestApplyRefusedPath(t *testing.T) {
	dir := t.TempDir()
	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	p := filepath.Join(dir, "a")
	os.WriteFile(p, []byte("now"), 0o644)
	h, _ := st.Put([]byte("then"))
	_, failed := Apply(st, []Step{{Path: p, Target: Image{Hash: h, Mode: 0o644}}}, func(string) error { return os.ErrPermission })
	if failed[p] == nil {
		t.Fatal("a refused path was written")
	}
	if b, _ := os.ReadFile(p); string(b) != "now" {
		t.Errorf("content %q", b)
	}
}

func TestStoreDedupAndDamage(t *testing.T) {
	st, _ := OpenStore(t.TempDir())
	h1, _ := st.Put([]byte("x"))
	h2, _ := st.Put([]byte("x"))
	if h1 != h2 {
		t.Fatal("same content, two names")
	}
	p, _ := st.path(h1)
	os.WriteFile(p, []byte("y"), 0o600)
	if _, err := st.Get(h1); err == nil {
		t.Error("a damaged blob was returned")
	}
	if _, err := st.Get("../../etc/passwd"); err == nil {
		t.Error("an invalid name was read")
	}
}

// TestGitPreimages: in a repository, a file a command changed that was
// as the index recorded it gets the index's blob as its pre-image; one
// already changed before the turn, or whose blob differs in size from
// the file (autocrlf), stays unknown.
func TestGitPreimages(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	write := func(name, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("clean.txt", "committed\n")
	write("sub/dir/deep.go", "package deep\n")
	write("dirty.txt", "committed\n")
	write("crlf.txt", "one\r\ntwo\r\n")
	write("gone.txt", "to be removed\n")
	past := time.Now().Add(-time.Minute) // older than the index: not "racily clean", whose size git smudges
	for _, name := range []string{"clean.txt", "sub/dir/deep.go", "dirty.txt", "crlf.txt", "gone.txt"} {
		os.Chtimes(filepath.Join(dir, name), past, past)
	}
	git("add", "-A")
	git("commit", "-qm", "c")
	write("dirty.txt", "COMMITTED\n") // as long as the blob: only the time tells
	// crlf.txt's blob is "one\ntwo\n" (git converted it), its index stat the file's.
	git("-c", "core.autocrlf=true", "rm", "-q", "--cached", "crlf.txt")
	git("-c", "core.autocrlf=input", "add", "crlf.txt")

	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	r := NewRecorder(st, []string{dir})
	r.Begin()
	r.BeforeCommand()
	write("clean.txt", "changed by a command, longer\n")
	write("sub/dir/deep.go", "package deep // changed\n")
	write("dirty.txt", "changed by a command\n")
	write("crlf.txt", "ONE\r\nTWO\r\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	changes, err := end(r)
	if err != nil {
		t.Fatal(err)
	}
	rw := Plan([][]Change{changes}, Now)
	restored, failed := Apply(st, rw.Restore, nil)
	if len(failed) > 0 {
		t.Fatalf("failed %v", failed)
	}
	slices.Sort(rw.Unknown)
	if want := []string{filepath.Join(dir, "crlf.txt"), filepath.Join(dir, "dirty.txt")}; !slices.Equal(rw.Unknown, want) {
		t.Errorf("unknown %v, want %v", rw.Unknown, want)
	}
	if len(restored) != 3 {
		t.Errorf("restored %v", restored)
	}
	for name, want := range map[string]string{"clean.txt": "committed\n", "sub/dir/deep.go": "package deep\n", "gone.txt": "to be removed\n", "dirty.txt": "changed by a command\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}
