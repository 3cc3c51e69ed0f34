package bridge_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// lspPath is PATH with the language servers make deps-lsp installs in
// front (gopls in the tools cache, pyright and typescript-language-server
// in internal/devtools/lspdeps); a missing one fails the test.
func lspPath(t testing.TB) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	_, here, _, _ := runtime.Caller(0)
	gobin := filepath.Join(home, ".cache", "dsh-bridge", "bin")
	npmbin, _ := filepath.Abs(filepath.Join(filepath.Dir(here), "..", "internal", "devtools", "lspdeps", "node_modules", ".bin"))
	for _, p := range []string{filepath.Join(gobin, "gopls"), filepath.Join(npmbin, "pyright-langserver"), filepath.Join(npmbin, "typescript-language-server")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing: run make deps-lsp", p)
		}
	}
	return "PATH=" + gobin + string(os.PathListSeparator) + npmbin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// lspSetup is setup through the binary with the language servers on
// PATH, files written in the workspace and user settings (where
// WORKSPACE stands for the workspace's path), in bypassPermissions mode
// (nothing asks).
func lspSetup(t *testing.T, files map[string]string, user string, turns ...fakeTurn) *harness {
	t.Helper()
	return lspSetupB(t, files, user, turns...)
}

// lspSetupB is lspSetup for a benchmark too.
func lspSetupB(t testing.TB, files map[string]string, user string, turns ...fakeTurn) *harness {
	t.Helper()
	return lspSetupEnv(t, files, user, nil, turns...)
}

// lspSetupEnv is lspSetupB with more of the bridge's environment.
func lspSetupEnv(t testing.TB, files map[string]string, user string, env []string, turns ...fakeTurn) *harness {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(strings.ReplaceAll(user, "WORKSPACE", dir)), 0o600)
	m := newFakeModel(t, turns...)
	e := startBinary(t, append([]string{"DSH_BASE_URL=" + m.srv.URL, lspPath(t), "XDG_CONFIG_HOME=" + cfg}, env...)...)
	e.initialize(cardCaps())
	h := &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	return h
}

// lastMeta is the _meta.dsh of call id's last update.
func (h *harness) lastMeta(id string) map[string]json.RawMessage {
	ups := h.toolUpdates(id)
	if len(ups) == 0 {
		return nil
	}
	var u struct {
		Meta struct {
			Dsh map[string]json.RawMessage `json:"dsh"`
		} `json:"_meta"`
	}
	json.Unmarshal(ups[len(ups)-1].Raw, &u)
	return u.Meta.Dsh
}

const lspReports = "The language server reports"

// TestBridge_LSPDiagnosticsAfterEdit: through the binary and the real
// servers, the diagnostics tool finds the file clean; an edit that
// introduces a type error gets it in the tool result the model reads
// next, and on the card (_meta.dsh.diagnostics and the text under the
// diff); the edit that fixes it gets none. Go, Python and TypeScript; a
// write the same.
func TestBridge_LSPDiagnosticsAfterEdit(t *testing.T) {
	for _, tc := range []struct {
		name, file, good, bad, want string
		files                       map[string]string
	}{
		{name: "go", file: "demo.go", good: "return Add(1, 2)", bad: `return Add(1, "two")`, want: `demo.go:5:`,
			files: map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n",
				"demo.go": "package demo\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Use() int { return Add(1, 2) }\n"}},
		{name: "python", file: "demo.py", good: "add(1, 2)", bad: `add(1, "two")`, want: `demo.py:4:`,
			files: map[string]string{"demo.py": "def add(a: int, b: int) -> int:\n    return a + b\n\nx: int = add(1, 2)\n"}},
		{name: "typescript", file: "demo.ts", good: "add(1, 2)", bad: `add(1, "two")`, want: `demo.ts:2:`,
			files: map[string]string{"tsconfig.json": "{\"compilerOptions\": {\"strict\": true}}\n",
				"demo.ts": "function add(a: number, b: number): number { return a + b }\nexport const x: number = add(1, 2)\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := lspSetup(t, tc.files, `{}`,
				// The server loads and checks the file first: the edits
				// then meet a warm server, as after the model's reads.
				fakeTurn{calls: []fakeCall{{"warm", "diagnostics", args("file_path", tc.file)}}},
				fakeTurn{calls: []fakeCall{{"bad", "edit", args("file_path", tc.file, "old_string", tc.good, "new_string", tc.bad)}}},
				fakeTurn{calls: []fakeCall{{"fix", "edit", args("file_path", tc.file, "old_string", tc.bad, "new_string", tc.good)}}},
				fakeTurn{calls: []fakeCall{{"rewrite", "write", args("file_path", tc.file, "content", strings.Replace(tc.files[tc.file], tc.good, tc.bad, 1))}}},
				fakeTurn{text: "done"})
			h.prompt(h.session, "x")
			if warm := h.toolMessages(1)["warm"]; !strings.Contains(warm, "No errors or warnings") {
				t.Errorf("the good file: %s", warm)
			}
			bad := h.toolMessages(2)["bad"]
			if !strings.Contains(bad, lspReports) || !strings.Contains(bad, tc.want) || !strings.Contains(bad, ": error: ") {
				t.Errorf("the model got, after the breaking edit:\n%s", bad)
			}
			if fix := h.toolMessages(3)["fix"]; strings.Contains(fix, lspReports) || !strings.Contains(fix, "updated successfully") {
				t.Errorf("the model got, after the fixing edit:\n%s", fix)
			}
			if w := h.toolMessages(4)["rewrite"]; !strings.Contains(w, lspReports) || !strings.Contains(w, tc.want) {
				t.Errorf("the model got, after the write:\n%s", w)
			}
			var diags []struct {
				Path, Severity, Message string
				Line, Column            int
			}
			json.Unmarshal(h.lastMeta("bad")["diagnostics"], &diags)
			if len(diags) == 0 || diags[0].Severity != "error" || !strings.HasSuffix(diags[0].Path, tc.file) || diags[0].Line != mustLine(tc.want) {
				t.Errorf("the card's _meta.dsh.diagnostics: %+v", diags)
			}
			ups := h.toolUpdates("bad")
			if last := string(ups[len(ups)-1].Content); !strings.Contains(last, "Language server: ") || !strings.Contains(last, tc.want) {
				t.Errorf("the card's content: %s", last)
			}
			if d := h.lastMeta("fix")["diagnostics"]; d != nil {
				t.Errorf("the fixing edit's card has diagnostics %s", d)
			}
		})
	}
}

// TestBridge_LSPCodeModeEdit: an edit a run_code program makes returns
// the file's diagnostics to the program (the value's diagnostics), and
// its nested card carries them.
func TestBridge_LSPCodeModeEdit(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"demo.go": "package demo\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Use() int { return Add(1, 2) }\n"}
	prog := `const r = await tools.edit({file_path: "demo.go", old_string: "Add(1, 2)", new_string: 'Add(1, "two")'});
return r.diagnostics.map(d => d.line + ":" + d.severity).join(",");`
	h := lspSetupEnv(t, files, `{}`, []string{"DSH_TOOLS_MODE=code"},
		fakeTurn{calls: []fakeCall{{"rc", "run_code", args("code", prog, "description", "Break it")}}},
		fakeTurn{text: "done"})
	h.prompt(h.session, "x")
	if got := h.toolMessages(1)["rc"]; !strings.Contains(got, "5:error") {
		t.Errorf("the program returned %q", got)
	}
	found := false
	for _, u := range h.decodedUpdates() {
		if strings.HasPrefix(u.ToolCallID, "rc:code:") && strings.Contains(string(u.Raw), `"diagnostics":[{`) {
			found = true
		}
	}
	if !found {
		t.Error("no sub-call card carries the diagnostics")
	}
}

// mustLine is the line number of "file:N:".
func mustLine(want string) int {
	parts := strings.Split(want, ":")
	n, _ := strconv.Atoi(parts[1])
	return n
}

const defsA = "package demo\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
const defsB = "package demo\n\nfunc Use() int {\n\treturn Add(1, 2) + Add(3, 4)\n}\n"

// TestBridge_LSPDefinitionAndReferences: the lsp tool, at a Go symbol's
// use (line and column as read numbers them), finds its definition in
// the other file and every reference.
func TestBridge_LSPDefinitionAndReferences(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "a.go": defsA, "b.go": defsB}
	h := lspSetup(t, files, `{}`,
		fakeTurn{calls: []fakeCall{{"def", "lsp", args("operation", "definition", "file_path", "b.go", "line", 4, "column", 9)}}},
		fakeTurn{calls: []fakeCall{{"refs", "lsp", args("operation", "references", "file_path", "a.go", "line", 4, "column", 6)}}},
		fakeTurn{calls: []fakeCall{{"hover", "lsp", args("operation", "hover", "file_path", "b.go", "line", 4, "column", 9)}}},
		fakeTurn{calls: []fakeCall{{"syms", "lsp", args("operation", "document_symbols", "file_path", "a.go")}}},
		fakeTurn{calls: []fakeCall{{"wsyms", "lsp", args("operation", "workspace_symbols", "file_path", "a.go", "query", "Add")}}},
		fakeTurn{text: "done"})
	h.prompt(h.session, "x")
	a, b := filepath.Join(h.dir, "a.go"), filepath.Join(h.dir, "b.go")
	if got := h.toolMessages(1)["def"]; got != a+":4:6" {
		t.Errorf("definition: %q, want %q", got, a+":4:6")
	}
	want := strings.Join([]string{a + ":4:6", b + ":4:9", b + ":4:21"}, "\n")
	if got := h.toolMessages(2)["refs"]; got != want {
		t.Errorf("references:\n%s\nwant:\n%s", got, want)
	}
	if got := h.toolMessages(3)["hover"]; !strings.Contains(got, "func Add(a int, b int) int") && !strings.Contains(got, "func Add(a, b int) int") {
		t.Errorf("hover: %q", got)
	}
	if got := h.toolMessages(4)["syms"]; !strings.Contains(got, "function Add "+a+":4:6") {
		t.Errorf("document symbols: %q", got)
	}
	if got := h.toolMessages(5)["wsyms"]; !strings.Contains(got, "Add "+a+":4:6") {
		t.Errorf("workspace symbols: %q", got)
	}
}

// TestBridge_LSPRecheckAfterCommand: a file the servers hold, changed by
// a bash command, is sent again: the diagnostics tool then reports the
// error the command introduced.
func TestBridge_LSPRecheckAfterCommand(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n",
		"demo.go": "package demo\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Use() int { return Add(1, 2) }\n"}
	h := lspSetup(t, files, `{}`,
		fakeTurn{calls: []fakeCall{{"open", "edit", args("file_path", "demo.go", "old_string", "Add(1, 2)", "new_string", "Add(1, 3)")}}},
		fakeTurn{calls: []fakeCall{{"sed", "bash", args("command", `sed -i 's/Add(1, 3)/Add(1, "three")/' demo.go`, "description", "break it")}}},
		fakeTurn{calls: []fakeCall{{"check", "diagnostics", args("file_path", "demo.go")}}},
		fakeTurn{calls: []fakeCall{{"all", "diagnostics", args()}}},
		fakeTurn{text: "done"})
	h.prompt(h.session, "x")
	if got := h.toolMessages(1)["open"]; strings.Contains(got, lspReports) {
		t.Errorf("the clean edit reported: %s", got)
	}
	want := filepath.Join(h.dir, "demo.go") + ":5:"
	for _, id := range []string{"check", "all"} {
		if got := h.toolMessages(3 + map[string]int{"check": 0, "all": 1}[id])[id]; !strings.HasPrefix(got, want) || !strings.Contains(got, "error") {
			t.Errorf("%s: %q, want the error at %s", id, got, want)
		}
	}
}
