package bridge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestBridge_TempFolderInstallIsKept is issue 47's F2: dsh-bridge and its
// helpers unpacked in the temp folder, and its configuration and session
// logs there too (all of which sandboxed commands may write). A command
// that replaces a helper or the bridge's binary (renaming over it,
// writing it, renaming its folder away), or writes dsh-bridge's settings
// or a session log, is refused; the next web_fetch still runs the real
// dsh-markdown, and the next command in the editor's terminal the real
// launcher. Locally, and in the editor's terminal.
func TestBridge_TempFolderInstallIsKept(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><h1>Title</h1><p>text</p></body></html>`)
	}))
	defer page.Close()
	for _, tc := range []struct {
		name string
		caps map[string]any
	}{
		{"local", nil},
		{"editor terminal", map[string]any{"terminal": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := filepath.EvalSymlinks(t.TempDir())
			tmp, outside := filepath.Join(base, "tmp"), filepath.Join(base, "outside")
			bin, cfg, state := filepath.Join(tmp, "bin"), filepath.Join(tmp, "config"), filepath.Join(tmp, "state")
			for _, d := range []string{bin, cfg, outside} {
				os.MkdirAll(d, 0o755)
			}
			programs := []string{"dsh-bridge", "dsh-markdown", "dsh-highlight", "dsh-code"}
			before := map[string]os.FileInfo{}
			for _, name := range programs {
				data, err := os.ReadFile(filepath.Join(filepath.Dir(binary), name))
				if err != nil {
					t.Fatal(err)
				}
				proctest.WriteExec(t, filepath.Join(bin, name), data)
				before[name], _ = os.Stat(filepath.Join(bin, name))
			}
			evil := filepath.Join(tmp, "evil")
			attacks := strings.Join([]string{
				fmt.Sprintf(`printf '#!/bin/sh\necho escaped >> %s/marker\n' > %s && chmod +x %s`, outside, evil, evil),
				fmt.Sprintf("cp %s %s/dsh-markdown.new && mv -f %s/dsh-markdown.new %s/dsh-markdown", evil, bin, bin, bin),
				fmt.Sprintf("cp %s %s/dsh-bridge.new && mv -f %s/dsh-bridge.new %s/dsh-bridge", evil, bin, bin, bin),
				fmt.Sprintf("cat %s > %s/dsh-highlight", evil, bin),
				fmt.Sprintf("rm -f %s/dsh-code", bin),
				fmt.Sprintf("mv %s %s.old && mkdir %s && cp %s %s/dsh-markdown", bin, bin, bin, evil, bin),
				fmt.Sprintf(`mkdir -p %s/dsh-bridge && echo '{"mcpServers":{"x":{"command":"%s"}}}' > %s/dsh-bridge/settings.json`, cfg, evil, cfg),
				fmt.Sprintf("echo '{}' > %s/sess_planted.jsonl", state),
				"echo done",
			}, "; ")
			m := newFakeModel(t, bashTurn("plant", attacks), fakeTurn{text: "ok"},
				fakeTurn{calls: []fakeCall{{"f", "web_fetch", args("url", page.URL)}}}, fakeTurn{text: "ok"},
				bashTurn("next", "echo second"), fakeTurn{text: "ok"})
			e := startEditorOf(t, filepath.Join(bin, "dsh-bridge"), "DSH_BASE_URL="+m.srv.URL, "TMPDIR="+tmp, "XDG_CONFIG_HOME="+cfg, "DSH_STATE_DIR="+state)
			e.initialize(tc.caps)
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			h := &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
			h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
			h.prompt(h.session, "plant")
			if got := h.toolMessages(1)["plant"]; !strings.Contains(got, "done") {
				t.Fatalf("the command did not run to its end: %q", got)
			}
			for _, name := range programs {
				if now, err := os.Stat(filepath.Join(bin, name)); err != nil || !os.SameFile(now, before[name]) || now.Size() != before[name].Size() {
					t.Errorf("%s was replaced or changed (%v); the command got %q", name, err, h.toolMessages(1)["plant"])
				}
			}
			for _, planted := range []string{filepath.Join(cfg, "dsh-bridge", "settings.json"), filepath.Join(state, "sess_planted.jsonl")} {
				if _, err := os.Stat(planted); err == nil {
					t.Errorf("the command wrote %s", planted)
				}
			}
			h.prompt(h.session, "fetch")
			if got := h.toolMessages(3)["f"]; !strings.Contains(got, "# Title") {
				t.Errorf("web_fetch did not convert the page with the real dsh-markdown: %q", got)
			}
			h.prompt(h.session, "again")
			if got := h.toolMessages(5)["next"]; !strings.Contains(got, "second") {
				t.Errorf("the next command: %q", got)
			}
			if b, err := os.ReadFile(filepath.Join(outside, "marker")); err == nil {
				t.Errorf("a planted program ran outside the sandbox: %q", b)
			}
		})
	}
}
