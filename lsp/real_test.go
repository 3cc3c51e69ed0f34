package lsp

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// withServers puts the language servers make deps-lsp installs on PATH
// (gopls in the tools cache, pyright and typescript-language-server in
// internal/devtools/lspdeps), and fails when one is missing: the tests
// run against the real servers, never skip.
func withServers(t testing.TB) {
	t.Helper()
	home, _ := os.UserHomeDir()
	_, here, _, _ := runtime.Caller(0)
	bins := []string{filepath.Join(home, ".cache", "dsh-bridge", "bin"), filepath.Join(filepath.Dir(here), "..", "internal", "devtools", "lspdeps", "node_modules", ".bin")}
	for i, b := range bins {
		bins[i], _ = filepath.Abs(b)
	}
	for _, p := range []string{filepath.Join(bins[0], "gopls"), filepath.Join(bins[1], "pyright-langserver"), filepath.Join(bins[1], "typescript-language-server")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing: run make deps-lsp", p)
		}
	}
	t.Setenv("PATH", strings.Join(bins, string(os.PathListSeparator))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// reports collects a manager's reports.
type reports struct {
	mu  sync.Mutex
	got []string
}

func (r *reports) add(severity, title, _ string) {
	r.mu.Lock()
	r.got = append(r.got, severity+": "+title)
	r.mu.Unlock()
}

func (r *reports) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func write(t testing.TB, dir, rel, text string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func messages(ds []card.Diagnostic) string {
	var b []string
	for _, d := range ds {
		b = append(b, d.String())
	}
	return strings.Join(b, "\n")
}

const goodGo = "package demo\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Use() int { return Add(1, 2) }\n"
const badGo = "package demo\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Use() int { return Add(1, \"two\") }\n"

// TestManager_RealServers: each built-in server reports a type error an
// edit introduces, on its line, and nothing once it is fixed.
func TestManager_RealServers(t *testing.T) {
	withServers(t)
	for _, tc := range []struct {
		name, file, bad, good, want string
		line                        int
		files                       map[string]string
	}{
		{name: "go", file: "demo.go", bad: badGo, good: goodGo, want: "cannot use \"two\"", line: 5,
			files: map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n"}},
		{name: "python", file: "demo.py", bad: "def add(a: int, b: int) -> int:\n    return a + b\n\nx: int = add(1, \"two\")\n",
			good: "def add(a: int, b: int) -> int:\n    return a + b\n\nx: int = add(1, 2)\n", want: "\"Literal['two']\"", line: 4},
		{name: "typescript", file: "demo.ts", bad: "function add(a: number, b: number): number { return a + b }\nexport const x: number = add(1, \"two\")\n",
			good: "function add(a: number, b: number): number { return a + b }\nexport const x: number = add(1, 2)\n", want: "not assignable to parameter of type 'number'", line: 2,
			files: map[string]string{"tsconfig.json": "{\"compilerOptions\": {\"strict\": true}}\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			for rel, text := range tc.files {
				write(t, dir, rel, text)
			}
			path := write(t, dir, tc.file, tc.good)
			var r reports
			m := New(Options{Roots: []string{dir}, Servers: Builtins(), Report: r.add, Launch: Launcher{Env: append(os.Environ(), "GOFLAGS=-mod=mod")}})
			defer m.Close()
			ctx := context.Background()
			m.Touch(path)
			got, err := m.Changed(ctx, path, tc.good, true)
			if err != nil || len(got) != 0 {
				t.Fatalf("the good file: %v, %s", err, messages(got))
			}
			write(t, dir, tc.file, tc.bad)
			got, err = m.Changed(ctx, path, tc.bad, true)
			if err != nil || len(got) == 0 || !strings.Contains(got[0].Message, tc.want) || got[0].Line != tc.line || got[0].Severity != card.SeverityError {
				t.Fatalf("the bad file: %v, %s", err, messages(got))
			}
			write(t, dir, tc.file, tc.good)
			got, err = m.Changed(ctx, path, tc.good, true)
			if err != nil || len(got) != 0 {
				t.Fatalf("the fixed file: %v, %s", err, messages(got))
			}
			if rep := r.list(); len(rep) != 0 {
				t.Errorf("reports: %q", rep)
			}
		})
	}
}

func init() {
	if os.Getenv("LSP_DEBUG") != "" {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}
}

// TestManager_ImportersNewErrors: an edit of package a that renames the
// function package b calls gets b's new error after a's own (none); the
// edit that restores it gets none, in either file.
func TestManager_ImportersNewErrors(t *testing.T) {
	withServers(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	const good = "package a\n\nfunc Hello() int { return 1 }\n"
	const renamed = "package a\n\nfunc Hi() int { return 1 }\n"
	a := write(t, dir, "a/a.go", good)
	b := write(t, dir, "b/b.go", "package b\n\nimport \"example.com/m/a\"\n\nfunc B() int { return a.Hello() }\n")
	m := New(Options{Roots: []string{dir}, Servers: Builtins(), Launch: Launcher{Env: append(os.Environ(), "GOFLAGS=-mod=mod")}})
	defer m.Close()
	ctx := context.Background()
	if got, err := m.Changed(ctx, a, good, true); err != nil || len(got) != 0 {
		t.Fatalf("the good file: %v, %s", err, messages(got))
	}
	for i, step := range []struct {
		name, text, want string
	}{
		{"renamed", renamed, b + ":5:25: error: undefined: a.Hello"},
		{"restored", good, ""},
		{"renamed again", renamed, b + ":5:25: error: undefined: a.Hello"},
	} {
		write(t, dir, "a/a.go", step.text)
		got, err := m.Changed(ctx, a, step.text, true)
		if err != nil || messages(got) != step.want {
			t.Errorf("edit %d (%s): %v, %q; want %q", i, step.name, err, messages(got), step.want)
		}
	}
}
