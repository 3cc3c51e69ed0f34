package checkpoint

import (
	"bytes"
	"compress/zlib"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepo is a repository holding f.txt = "AAAA" committed, its time a
// minute back (not "racily clean"), and a git runner in it.
func gitRepo(t *testing.T) (dir string, git func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	git = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	f := filepath.Join(dir, "f.txt")
	must(t, os.WriteFile(f, []byte("AAAA"), 0o644))
	past := time.Now().Add(-time.Minute)
	must(t, os.Chtimes(f, past, past))
	git("add", "f.txt")
	git("commit", "-qm", "c")
	return dir, git
}

// TestGitIndexRewrittenByCommand: a command that stages other bytes
// with the file's old size and time, then changes the file, does not
// choose the pre-image: it is the index's blob as the turn began.
func TestGitIndexRewrittenByCommand(t *testing.T) {
	dir, git := gitRepo(t)
	f := filepath.Join(dir, "f.txt")
	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	r := NewRecorder(st, []string{dir})
	changes := recordTurn(t, r, nil, func() {
		fi, err := os.Stat(f)
		must(t, err)
		tmp := filepath.Join(dir, ".t")
		must(t, os.WriteFile(tmp, []byte("EVIL"), 0o644))
		must(t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
		must(t, os.Rename(tmp, f))
		git("add", "f.txt")
		must(t, os.WriteFile(f, []byte("BBBB"), 0o644))
	})
	rw := Plan([][]Change{changes}, Now)
	if _, failed := Apply(st, rw.Restore, nil); len(failed) != 0 || len(rw.Restore) != 1 {
		t.Fatalf("plan %+v failed %v", rw, failed)
	}
	if b, _ := os.ReadFile(f); string(b) != "AAAA" {
		t.Errorf("f.txt = %q, want the index's blob as the turn began", b)
	}
}

// TestGitObjectReplaced: a loose object a command replaced (git does
// not check an object's name when it reads it) is refused: the file
// is not restorable rather than restored to the forged bytes.
func TestGitObjectReplaced(t *testing.T) {
	dir, git := gitRepo(t)
	f := filepath.Join(dir, "f.txt")
	sha := git("rev-parse", "HEAD:f.txt")
	obj := filepath.Join(dir, ".git", "objects", sha[:2], sha[2:])
	st, _ := OpenStore(filepath.Join(t.TempDir(), "blobs"))
	r := NewRecorder(st, []string{dir})
	changes := recordTurn(t, r, nil, func() {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte("blob 4\x00EVIL"))
		w.Close()
		os.Chmod(obj, 0o644)
		must(t, os.WriteFile(obj, z.Bytes(), 0o444))
		must(t, os.WriteFile(f, []byte("BBBB"), 0o644))
	})
	if out := git("cat-file", "blob", sha); out != "EVIL" {
		t.Skipf("this git checks objects it reads (%q)", out)
	}
	rw := Plan([][]Change{changes}, Now)
	if len(rw.Restore) != 0 || len(rw.Unknown) != 1 {
		t.Errorf("plan %+v, want f.txt not restorable", rw)
	}
}

// TestGitBlobID names blobs as git does.
func TestGitBlobID(t *testing.T) {
	dir, git := gitRepo(t)
	for _, content := range []string{"", "AAAA", "line\r\nline\n"} {
		p := filepath.Join(dir, "h")
		must(t, os.WriteFile(p, []byte(content), 0o644))
		if got, want := gitBlobID([]byte(content), 40), git("hash-object", "h"); got != want {
			t.Errorf("gitBlobID(%q) = %s, git says %s", content, got, want)
		}
	}
	// SHA-256 of "blob 0\x00", as `git init --object-format=sha256` names the empty blob.
	if got := gitBlobID(nil, 64); got != "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813" {
		t.Errorf("sha256 empty blob %s", got)
	}
	if gitBlobID(nil, 12) != "" {
		t.Error("an unknown length got a name")
	}
}
