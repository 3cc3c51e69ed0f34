//go:build unix

package bridge_test

// The red team's findings on checkpoints and rewind (task red-rewind):
// each test states a promise of docs/meta-dsh.md, checkpoint/doc.go or
// issue 53 that today's code breaks, driven through the built binary.

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// redConflictAsked reports whether a rewind's three-way conflict prompt
// was sent.
func redConflictAsked(a *redAgent) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.asked {
		if redIsConflict(p) {
			return true
		}
	}
	return false
}

func redIsConflict(params json.RawMessage) bool {
	var p struct{ Options []struct{ OptionID string } }
	json.Unmarshal(params, &p)
	for _, o := range p.Options {
		if o.OptionID == "keep" {
			return true
		}
	}
	return false
}

// A file the person changed between two turns, which the later turn's
// command then changed again, is overwritten by a rewind to the earlier
// turn without any question: the command's Unknown pre-image "continues
// the chain" (checkpoint.unbroken), so the person's edit in between is
// not seen. Promise: "a file that was changed since by someone else is
// not overwritten: the rewind lists it and asks".
func TestRedRewindCommandHidesEditBetweenTurns(t *testing.T) {
	ws := redWorkspace(t)
	f := filepath.Join(ws, "notes.txt")
	redMustWrite(t, f, []byte("orig\n"), 0o644)
	a := redStart(t, "", []string{
		redTurn(redRead("notes.txt")),
		redTurn(redWrite("notes.txt", "agent\n")),
		redTurn(),
		redTurn(redBash("echo appended >> notes.txt")),
		redTurn(),
	})
	a.Answer = func(p json.RawMessage) string {
		if redIsConflict(p) {
			return "keep"
		}
		return redAllow(p)
	}
	sid := a.NewSession(ws)
	first := a.Prompt(sid, "write the notes")
	redMustWrite(t, f, []byte("MY OWN WORK\n"), 0o644) // the person, between the turns
	a.Prompt(sid, "append a line")
	r, err := a.Rewind(sid, first)
	if err != nil {
		t.Fatal(err)
	}
	got := redReadFile(t, f)
	if !strings.Contains(got, "MY OWN WORK") {
		t.Errorf("the person's edit between the turns was overwritten without asking (conflict asked: %v): file %q, rewind %+v",
			redConflictAsked(a), got, r)
	}
}

// With the state folder inside the workspace (a workspace opened on the
// home folder, with the default ~/.local/state), a turn that runs a
// command records the checkpoint store's own new blobs as files the turn
// created; the rewind deletes them (newest first) before it reads them,
// so the turn's file cannot be restored: its pre-image is gone for good.
func TestRedRewindStateFolderInsideWorkspace(t *testing.T) {
	ws := redWorkspace(t)
	f := filepath.Join(ws, "a.txt")
	redMustWrite(t, f, []byte("precious\n"), 0o644)
	a := redStart(t, filepath.Join(ws, "state"), []string{
		redTurn(redBash("true")),
		redTurn(redRead("a.txt")),
		redTurn(redWrite("a.txt", "agent\n")),
		redTurn(),
	})
	sid := a.NewSession(ws)
	id := a.Prompt(sid, "change a.txt")
	r, err := a.Rewind(sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := redReadFile(t, f); got != "precious\n" {
		t.Errorf("a.txt = %q after the rewind, want its pre-image; rewind %+v", got, r)
	}
	for _, p := range append(r.Restored, r.NotRestorable...) {
		if strings.HasPrefix(p, filepath.Join(ws, "state")+string(filepath.Separator)) {
			t.Errorf("the rewind treated the bridge's own state file %s as a turn's change", p)
		}
	}
}

// Two turns whose client-chosen messageIds are equal (the bridge keeps
// any valid client id, unchecked) share one checkpoint: /undo of the
// last turn also undoes the first turn's files, and its rewind marker
// cuts the log at the first turn, so a session/load shows a different
// history from the live one.
func TestRedRewindUndoDuplicateClientMessageID(t *testing.T) {
	ws := redWorkspace(t)
	state := t.TempDir()
	redMustWrite(t, filepath.Join(ws, "a.txt"), []byte("a0"), 0o644)
	redMustWrite(t, filepath.Join(ws, "b.txt"), []byte("b0"), 0o644)
	a := redStart(t, state, []string{
		redTurn(redRead("a.txt")),
		redTurn(redWrite("a.txt", "a1")),
		redTurn(),
		redTurn(redRead("b.txt")),
		redTurn(redWrite("b.txt", "b1")),
		redTurn(),
	})
	sid := a.NewSession(ws)
	a.Prompt(sid, "first turn", "m1")
	a.Prompt(sid, "second turn", "m1")
	a.Prompt(sid, "/undo")
	if got := redReadFile(t, filepath.Join(ws, "a.txt")); got != "a1" {
		t.Errorf("/undo of the second turn changed the first turn's file: a.txt = %q, want %q", got, "a1")
	}
	if got := redReadFile(t, filepath.Join(ws, "b.txt")); got != "b0" {
		t.Errorf("b.txt = %q, want %q", got, "b0")
	}
	b := redStart(t, state, nil)
	if err := b.Call("session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := b.UserTexts(sid); !slices.Contains(got, "first turn") {
		t.Errorf("after /undo of the second turn, a load replays %q: the first turn is gone too", got)
	}
}

// A file a turn replaced by a folder (rm f; mkdir f; …) cannot be
// restored even when the person takes the checkpoint: the files in the
// folder are removed, the folder stays ("empty folders stay"), and the
// rename of the pre-image onto it fails.
func TestRedRewindFileReplacedByFolder(t *testing.T) {
	ws := redWorkspace(t)
	f := filepath.Join(ws, "f")
	redMustWrite(t, f, []byte("orig"), 0o644)
	a := redStart(t, "", []string{
		redTurn(redRead("f")),
		redTurn(redWrite("f", "agent")),
		redTurn(redBash("rm f && mkdir f && echo x > f/y")),
		redTurn(),
	})
	a.Answer = func(p json.RawMessage) string {
		if redIsConflict(p) {
			return "take"
		}
		return redAllow(p)
	}
	sid := a.NewSession(ws)
	id := a.Prompt(sid, "turn f into a folder")
	r, err := a.Rewind(sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := redReadFile(t, f); got != "orig" {
		t.Errorf("f = %q after the rewind (taking the checkpoint), want %q; rewind %+v", got, "orig", r)
	}
}

// A folder a turn replaced by a file (rm -r d; echo > d) is seen as
// "changed by someone else": the rewind asks about d/x although no one
// but the turn touched it, and "Keep mine" then deletes d and leaves
// d/x unrestored: neither the person's files nor the checkpoint's.
func TestRedRewindFolderReplacedByFile(t *testing.T) {
	ws := redWorkspace(t)
	x := filepath.Join(ws, "d", "x")
	redMustWrite(t, x, []byte("orig"), 0o644)
	a := redStart(t, "", []string{
		redTurn(redRead("d/x")),
		redTurn(redWrite("d/x", "agent")),
		redTurn(redBash("rm -rf d && echo file > d")),
		redTurn(),
	})
	a.Answer = func(p json.RawMessage) string {
		if redIsConflict(p) {
			return "keep"
		}
		return redAllow(p)
	}
	sid := a.NewSession(ws)
	id := a.Prompt(sid, "turn d into a file")
	r, err := a.Rewind(sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if redConflictAsked(a) {
		t.Errorf("the rewind asked about a conflict no one made: %+v", r)
	}
	if got := redReadFile(t, x); got != "orig" {
		t.Errorf("d/x = %q after the rewind, want %q; rewind %+v", got, "orig", r)
	}
}

// A command that changes a file's content but leaves its size and
// modification time as they were (cp -p, touch -r, tar/rsync of a file
// of the same length) is invisible to the walks (size, mtime and mode
// only; no ctime, no inode): the rewind neither restores it nor lists
// it as not restorable, and says "no file needed restoring".
func TestRedRewindSameSizeSameMtimeChangeUnseen(t *testing.T) {
	ws := redWorkspace(t)
	f := filepath.Join(ws, "f.txt")
	redMustWrite(t, f, []byte("AAAA"), 0o644)
	a := redStart(t, "", []string{
		redTurn(redBash("cp -p f.txt .ref && printf BBBB > f.txt && touch -r .ref f.txt && rm .ref")),
		redTurn(),
	})
	sid := a.NewSession(ws)
	id := a.Prompt(sid, "rewrite f.txt")
	if got := redReadFile(t, f); got != "BBBB" {
		t.Fatalf("the command did not run: f.txt = %q", got)
	}
	r, err := a.Rewind(sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := redReadFile(t, f); got != "AAAA" && !slices.Contains(r.NotRestorable, f) {
		t.Errorf("f.txt = %q after the rewind and not listed as not restorable: rewind %+v", got, r)
	}
}

// In a git repository the pre-image of a file a command changed is
// taken from git's index, read after the command: a command can rewrite
// the index (git add of other bytes of the same size, the old mtime
// put back) so that the rewind writes bytes of its choosing and reports
// the file "restored".
func TestRedRewindForgedGitIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws := redWorkspace(t)
	f := filepath.Join(ws, "f.txt")
	redMustWrite(t, f, []byte("AAAA"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "f.txt"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := "printf EVIL > .t && touch -r f.txt .t && mv .t f.txt && git add f.txt && printf BBBB > f.txt"
	a := redStart(t, "", []string{redTurn(redBash(cmd)), redTurn()})
	sid := a.NewSession(ws)
	id := a.Prompt(sid, "change f.txt")
	if got := redReadFile(t, f); got != "BBBB" {
		t.Fatalf("the command did not run as scripted: f.txt = %q; %s", got, a.Texts(sid))
	}
	r, err := a.Rewind(sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := redReadFile(t, f); got == "EVIL" {
		t.Errorf("the rewind wrote the command's forged index blob: f.txt = %q, rewind %+v", got, r)
	}
}

// A write the person approved outside the workspace is recorded but a
// rewind refuses to restore it ("outside the workspace now", although
// it always was): the turn is not undone to the byte.
func TestRedRewindApprovedWriteOutsideWorkspace(t *testing.T) {
	ws := redWorkspace(t)
	out := redWorkspace(t)
	o := filepath.Join(out, "o.txt")
	redMustWrite(t, o, []byte("outside"), 0o644)
	a := redStart(t, "", []string{
		redTurn(redRead(o)),
		redTurn(redWrite(o, "agent")),
		redTurn(),
	})
	sid := a.NewSession(ws)
	id := a.Prompt(sid, "change the file outside")
	if got := redReadFile(t, o); got != "agent" {
		t.Fatalf("the approved write did not happen: %q; %s", got, a.Texts(sid))
	}
	r, err := a.Rewind(sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := redReadFile(t, o); got != "outside" {
		t.Errorf("%s = %q after the rewind, want %q; rewind %+v", o, got, "outside", r)
	}
}
