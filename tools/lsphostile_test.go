package tools

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
	"github.com/dsh-bridge/dsh-bridge/lsp"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// TestDiagnostics_HostileServerShowsOnlyWhatReadShows: a language
// server (lsp/testdata/hostilels) publishes diagnostics for files read
// may not show, through every spelling: a denied tree, a symlink into
// it and one out of the workspace, "..", percent-escapes, case, a file
// outside. Neither the edit's result nor the diagnostics tool shows any
// of them; they show the file's own and the one other workspace file.
func TestDiagnostics_HostileServerShowsOnlyWhatReadShows(t *testing.T) {
	bin := hostilels
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	list := filepath.Join(t.TempDir(), "publish.json")
	var m *lsp.Manager
	e := newEnv(t, LocalHost{}, func(o *Options) {
		root := o.Workspace.Roots()[0]
		o.Rules = denyTree{filepath.Join(root, "secrets")}
		m = lsp.New(lsp.Options{Roots: o.Workspace.Roots(), Launch: lsp.Launcher{Env: os.Environ()}, Wait: 10 * time.Second,
			Servers: []lsp.Server{{Language: "fake", Command: []string{bin, "publish", filepath.Join(outside, "pids"), list}, Extensions: []string{".fake"}}}})
		o.Checker = m
	})
	t.Cleanup(m.Close)
	ok := e.write("ok.fake", "x\n")
	e.write("secrets/key.fake", "secret\n")
	if err := os.WriteFile(filepath.Join(outside, "x.fake"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Where the system makes no symlinks (Wine), their two cases are
	// plain missing files, which read may show: they are left out.
	links := fsprobe.Symlink(t, filepath.Join(e.dir, "secrets", "key.fake"), filepath.Join(e.dir, "link.fake")) &&
		fsprobe.Symlink(t, outside, filepath.Join(e.dir, "out"))
	// A Windows path's drive gets the slash a URI's path needs
	// (file:///C:/x); the reads below take it off again.
	uri := func(p string) string {
		s := filepath.ToSlash(p)
		if !strings.HasPrefix(s, "/") {
			s = "/" + s
		}
		return (&url.URL{Scheme: "file", Path: s}).String()
	}
	hidden := map[string]string{
		"the denied tree":            uri(filepath.Join(e.dir, "secrets", "key.fake")),
		"dot-dot into it":            uri(e.dir) + "/sub/../secrets/key.fake",
		"percent-escapes":            uri(e.dir) + "/%73ecrets/%6Bey.fake",
		"a symlink into it":          uri(filepath.Join(e.dir, "link.fake")),
		"a symlink out of the roots": uri(filepath.Join(e.dir, "out", "x.fake")),
		"a file outside":             uri(filepath.Join(outside, "x.fake")),
	}
	if !links {
		delete(hidden, "a symlink into it")
		delete(hidden, "a symlink out of the roots")
	}
	if workspace.FoldsCase(runtime.GOOS) {
		hidden["another case"] = uri(filepath.Join(e.dir, "SECRETS", "KEY.fake"))
	}
	var params []any
	for name, u := range hidden {
		params = append(params, map[string]any{"uri": u, "diagnostics": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "severity": 1, "message": "leaked: " + name}}})
	}
	params = append(params, map[string]any{"uri": uri(ok), "diagnostics": []any{map[string]any{
		"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}}, "severity": 1, "message": "shown"}}})
	b, _ := json.Marshal(params)
	if err := os.WriteFile(list, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Each hidden spelling that names a file read refuses (the outside
	// ones read would ask about, with a policy; here it has none).
	for _, name := range []string{"the denied tree", "dot-dot into it", "percent-escapes", "a symlink into it"} {
		if _, ok := hidden[name]; !ok {
			continue
		}
		u, _ := url.Parse(hidden[name])
		p := u.Path
		if runtime.GOOS == "windows" {
			p = strings.TrimPrefix(p, "/")
		}
		if r := e.call("read", `{"file_path":`+quote(filepath.FromSlash(p))+`}`); !r.IsError {
			t.Fatalf("read shows %s (%s): the test names no denied file", name, u.Path)
		}
	}
	own := filepath.Join(e.dir, "own.fake")
	r := e.call("write", `{"file_path":"own.fake","content":"y\n"}`)
	edit := wantOK(t, r)
	var meta struct {
		Diagnostics []card.Diagnostic `json:"diagnostics"`
	}
	if err := r.Meta.Decode(&meta); err != nil || len(meta.Diagnostics) != 2 || meta.Diagnostics[0].Path != own || meta.Diagnostics[1].Path != ok {
		t.Errorf("the card's diagnostics: %v, %+v; want the file's own, then %s's", err, meta.Diagnostics, ok)
	}
	all := wantOK(t, e.call("diagnostics", `{}`))
	one := wantOK(t, e.call("diagnostics", `{"file_path":"own.fake"}`))
	for name, out := range map[string]string{"the write's result": edit, "the diagnostics tool": all, "the diagnostics tool for a file": one} {
		if strings.Contains(out, "leaked") || strings.Contains(out, "secrets") || strings.Contains(out, outside) {
			t.Errorf("%s shows what read may not:\n%s", name, out)
		}
		if !strings.Contains(out, own+":1:1: error: version") {
			t.Errorf("%s lacks the file's own:\n%s", name, out)
		}
	}
	for name, out := range map[string]string{"the write's result": edit, "the diagnostics tool": all} {
		if !strings.Contains(out, ok+":1:1: error: shown") {
			t.Errorf("%s lacks the other workspace file's:\n%s", name, out)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
