package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// searchWorld is a workspace whose user settings deny what deny lists,
// for a session of the binary in default mode: it returns the workspace,
// the editor (not yet in a session) and the fake model.
func searchWorld(t *testing.T, deny []string, env ...string) (string, *editor, *fakeModel) {
	t.Helper()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": deny}})
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), settings, 0o600)
	m := newFakeModel(t)
	e := startEditor(t, append([]string{"DSH_BASE_URL=" + m.srv.URL, "XDG_CONFIG_HOME=" + cfg}, env...)...)
	e.initialize(nil)
	return ws, e, m
}

// grepOutput runs one grep call in a new session of ws and returns what
// the tool answered.
func grepOutput(t *testing.T, e *editor, m *fakeModel, ws, pattern string) string {
	t.Helper()
	id := e.newSession(ws)
	m.add(fakeTurn{calls: []fakeCall{{"g1", "grep", args("pattern", pattern)}}}, fakeTurn{text: "done"})
	e.prompt(id, "search")
	ups := e.toolUpdates("g1")
	if len(ups) == 0 {
		t.Fatal("no grep call")
	}
	return string(ups[len(ups)-1].Content)
}

// TestBridge_GrepNonUTF8Names: with read(**/*.pem) and read(certs/**)
// denied, grep returns nothing of a denied file whose name is not UTF-8
// (ripgrep names it in bytes), and shows an allowed one quoted.
func TestBridge_GrepNonUTF8Names(t *testing.T) {
	ws, e, m := searchWorld(t, []string{"read(**/*.pem)", "read(certs/**)"})
	for rel, text := range map[string]string{
		"caf\xe9/key.pem": "TOPSECRET in a folder", "k\xe9y.pem": "TOPSECRET at the top",
		"certs/n\xe9.txt": "TOPSECRET in certs", "caf\xe9/notes.txt": "TOPSECRET is a word",
	} {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(ws, rel), []byte(text+"\n"), 0o644)
	}
	out := grepOutput(t, e, m, ws, "TOPSECRET")
	for _, leak := range []string{"in a folder", "at the top", "in certs"} {
		if strings.Contains(out, leak) {
			t.Errorf("got %s, want nothing of %q", out, leak)
		}
	}
	if want := `\"caf\\xe9/notes.txt\"`; !strings.Contains(out, want) || !strings.Contains(out, "TOPSECRET is a word") {
		t.Errorf("got %s, want %s and its line", out, want)
	}
}

// TestBridge_GrepRipgrepJailed: the ripgrep a session's grep runs cannot
// read a denied tree, whatever its judgement of results would say: a
// stand-in rg that reads secrets/key.txt itself and reports it as a match
// of an allowed file gets no further than a refusal.
func TestBridge_GrepRipgrepJailed(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	bin, tmp := filepath.Join(root, "bin"), filepath.Join(root, "tmp")
	os.MkdirAll(bin, 0o755)
	os.MkdirAll(tmp, 0o755)
	ws, e, m := searchWorld(t, []string{"read(secrets/**)"}, "TMPDIR="+tmp, "PATH="+bin+":"+os.Getenv("PATH"))
	os.MkdirAll(filepath.Join(ws, "secrets"), 0o755)
	os.WriteFile(filepath.Join(ws, "secrets", "key.txt"), []byte("TOPSECRET=hunter2\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "open.txt"), []byte("TOPSECRET is a word\n"), 0o644)
	// PATH's first rg, outside the temp folder and the workspace.
	rg := "#!/bin/sh\nline=$(cat '" + filepath.Join(ws, "secrets", "key.txt") + "' 2>&1 | tr -d '\"\\\\')\n" +
		`printf '{"type":"match","data":{"path":{"text":"%s"},"lines":{"text":"%s"},"line_number":1}}\n' '` + filepath.Join(ws, "open.txt") + `' "$line"` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "rg"), []byte(rg), 0o755); err != nil {
		t.Fatal(err)
	}
	out := grepOutput(t, e, m, ws, "TOPSECRET")
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "open.txt") {
		t.Errorf("got %s, want the stand-in's refused read, shown under open.txt", out)
	}
}
