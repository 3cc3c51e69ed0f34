package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBridge_EditorReadHeldToItsJudgement: when the editor serves reads,
// it is asked for the file the judgement saw (every symlink resolved),
// and its answer reaches the model only if that name still leads to the
// same file once the answer came. The fake editor swaps the files as it
// receives the request, between the judgement and its own open, as a
// command the model runs beside the read could.
func TestBridge_EditorReadHeldToItsJudgement(t *testing.T) {
	deny := `{"permissions":{"deny":["read(secrets/**)"]}}`
	caps := map[string]any{"fs": map[string]any{"readTextFile": true}}
	for _, tc := range []struct {
		name  string
		path  string                        // the read's file_path
		swap  func(t *testing.T, ws string) // as the editor receives the request
		asked string                        // the path the editor is asked for, relative to the workspace
		want  string                        // in what the model reads
	}{
		{name: "a link is asked for by its target", path: "link.txt", asked: "inside.txt", want: "insideText"},
		{name: "a link flipped to a denied file after the judgement", path: "link.txt",
			swap: func(t *testing.T, ws string) {
				relink(t, filepath.Join(ws, "secrets", "key.txt"), filepath.Join(ws, "link.txt"))
			},
			asked: "inside.txt", want: "insideText"},
		{name: "a folder on the judged path swapped for a link to a denied tree", path: "d/inside.txt",
			swap: func(t *testing.T, ws string) {
				d := filepath.Join(ws, "d")
				if err := os.Rename(d, d+".moved"); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(filepath.Join(ws, "secrets"), d); err != nil {
					t.Error(err)
				}
			},
			asked: "d/inside.txt", want: "once read, it no longer led to WS/d/inside.txt, the file this call was judged on; what was read was dropped"},
		{name: "the file judged replaced by another", path: "inside.txt",
			swap: func(t *testing.T, ws string) {
				if err := os.Rename(filepath.Join(ws, "other.txt"), filepath.Join(ws, "inside.txt")); err != nil {
					t.Error(err)
				}
			},
			asked: "inside.txt", want: "what was read was dropped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", tc.path)}}}
			h := setupWorkspace(t, deny, `{}`, caps, read, fakeTurn{text: "ok"})
			h.file("inside.txt", "insideText\n")
			h.file("d/inside.txt", "insideText\n")
			h.file("other.txt", "otherText\n")
			h.file("secrets/key.txt", "theSecret\n")
			h.file("secrets/inside.txt", "theSecret\n")
			if err := os.Symlink(filepath.Join(h.dir, "inside.txt"), filepath.Join(h.dir, "link.txt")); err != nil {
				t.Fatal(err)
			}
			var asked []string
			h.onRead = func(path string) (string, *rpcError) {
				asked = append(asked, path)
				if tc.swap != nil {
					tc.swap(t, h.dir)
				}
				b, err := os.ReadFile(path) // the editor opens what it was asked for, by name
				if err != nil {
					return "", &rpcError{Code: -32002, Message: "file not found"}
				}
				return string(b), nil
			}
			h.prompt(h.session, "read")
			if want := filepath.Join(h.dir, tc.asked); len(asked) != 1 || asked[0] != want {
				t.Errorf("the editor was asked for %q, want [%q]", asked, want)
			}
			got := h.toolMessages(1)["r"]
			if want := strings.ReplaceAll(tc.want, "WS", h.dir); !strings.Contains(got, want) {
				t.Errorf("the model read %q, want %q", got, want)
			}
			if strings.Contains(got, "theSecret") || strings.Contains(got, "otherText") {
				t.Errorf("the model read %q: the editor's answer for a file not judged", got)
			}
			for _, u := range h.toolUpdates("r") {
				if strings.Contains(string(u.Raw), "theSecret") {
					t.Errorf("the denied text reached the editor's card: %s", u.Raw)
				}
			}
		})
	}
}

// relink points the symlink link at target.
func relink(t *testing.T, target, link string) {
	t.Helper()
	tmp := link + ".new"
	if err := os.Symlink(target, tmp); err != nil {
		t.Error(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Error(err)
	}
}

// TestBridge_GrepRootFlippedAfterJudgement: grep with path set to a
// symlink hands ripgrep the folder the call was judged on. The ripgrep
// the bridge finds on PATH is a stand-in that points the link at a denied
// tree, runs the real one, and points the link back before it prints what
// it found (so the results are judged on the link as the call was): the
// denied file's text never reaches the model. The sandbox is off: in it
// ripgrep runs in a read-only jail, where the stand-in could not flip
// the link (TestBridge_GrepRipgrepJailed).
func TestBridge_GrepRootFlippedAfterJudgement(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Fatal("ripgrep is not installed: make deps installs it")
	}
	grep := fakeTurn{calls: []fakeCall{{"g", "grep", args("pattern", "needle", "path", "link")}}}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	link, open, secrets := filepath.Join(dir, "link"), filepath.Join(dir, "open"), filepath.Join(dir, "secrets")
	bin := t.TempDir()
	script := "#!/bin/sh\nln -sfn '" + secrets + "' '" + link + "'\n'" + rg + "' \"$@\" >'" + bin + "/out'\nst=$?\n" +
		"ln -sfn '" + open + "' '" + link + "'\ncat '" + bin + "/out'\nexit $st\n"
	if err := os.WriteFile(filepath.Join(bin, "rg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".dsh"), 0o755)
	os.WriteFile(filepath.Join(dir, ".dsh", "settings.json"), []byte(`{"permissions":{"deny":["read(secrets/**)"]}}`), 0o644)
	for f, text := range map[string]string{"open/key.txt": "needle open\n", "secrets/key.txt": "needle secret\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644)
	}
	os.Symlink(open, link)
	m := newFakeModel(t, grep, fakeTurn{text: "ok"})
	// The stand-in is looked up outside the bridge's temp folder (programs
	// in it are never run).
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"sandbox":{"mode":"off"}}`), 0o600)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "PATH="+bin+":"+os.Getenv("PATH"), "TMPDIR="+t.TempDir(), "XDG_CONFIG_HOME="+cfg)
	e.initialize(nil)
	h := &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
	h.prompt(h.session, "grep")
	got := h.toolMessages(1)["g"]
	if strings.Contains(got, "secret") || !strings.Contains(got, "link/key.txt") || !strings.Contains(got, "needle open") {
		t.Errorf("the model got %q, want link/key.txt's open needle alone", got)
	}
	if _, err := os.Stat(filepath.Join(bin, "out")); err != nil {
		t.Errorf("the bridge did not run the stand-in ripgrep: %v", err)
	}
}
