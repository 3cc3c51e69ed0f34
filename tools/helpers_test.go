package tools

import (
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/workspace"

	"context"
	"flag"
	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

var update = flag.Bool("update", false, "rewrite golden files")

// hostilels is the built lsp/testdata/hostilels, a language server that
// publishes what it should not.
var hostilels string

// workspacePaths are the paths below $WORKSPACE in a model-facing text.
var workspacePaths = regexp.MustCompile(`\$WORKSPACE[^\s<>"]*`)

func TestMain(m *testing.M) {
	sandbox.Main(sandbox.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}) // this test binary is also the sandbox helper
	// web_fetch converts HTML in the real dsh-markdown, built once here.
	// The diagnostics tests' hostile language server is built here too.
	proctest.MainWithHelpers(m,
		proctest.Helper{Pkg: "../cmd/dsh-markdown", Name: "dsh-markdown", Use: func(bin string) { os.Setenv("DSH_MARKDOWN", bin) }},
		proctest.Helper{Pkg: "../lsp/testdata/hostilels", Name: "hostilels", Use: func(bin string) { hostilels = bin }})
}

// touchMarkdownSources opens dsh-markdown's sources inside a test: it is
// built with go build, which the test cache cannot see, and files a test
// opens are part of its cache key.
func touchMarkdownSources(t *testing.T) {
	files, _ := filepath.Glob("../cmd/dsh-markdown/*.go")
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
}

// editorHost is a fake editor: a real Host whose reads see unsaved buffers
// first and whose writes land in the buffer and on disk (as an editor
// saving an agent's edit would), and whose commands run in numbered
// "editor terminals".
type editorHost struct {
	LocalHost
	mu      sync.Mutex
	buffers map[string]string
	writes  []string
	terms   int
}

func newEditorHost() *editorHost { return &editorHost{buffers: map[string]string{}} }

func (e *editorHost) ReadTextFile(ctx context.Context, path string) (string, error) {
	e.mu.Lock()
	b, ok := e.buffers[path]
	e.mu.Unlock()
	if ok {
		return b, nil
	}
	return e.LocalHost.ReadTextFile(ctx, path)
}

// OpenText reads through the buffers, as ReadTextFile does (LocalHost's
// would bypass them).
func (e *editorHost) OpenText(ctx context.Context, path string) (io.ReadCloser, error) {
	s, err := e.ReadTextFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

// OpenChecked reads through the buffers too (LocalHost's would bypass
// them).
func (e *editorHost) OpenChecked(ctx context.Context, path, verb string, check func(string) error) (io.ReadCloser, error) {
	return OpenRegular(ctx, e, path, verb, check)
}

// WriteChecked writes through the buffers too (LocalHost's would bypass
// them).
func (e *editorHost) WriteChecked(ctx context.Context, path, content string, check func(string) error) error {
	return WriteJudged(ctx, e, path, content, check)
}

func (e *editorHost) WriteTextFile(ctx context.Context, path, content string) error {
	e.mu.Lock()
	e.buffers[path] = content
	e.writes = append(e.writes, path)
	e.mu.Unlock()
	return e.LocalHost.WriteTextFile(ctx, path, content)
}

func (e *editorHost) Start(ctx context.Context, c Command) (Process, error) {
	p, err := e.LocalHost.Start(ctx, c)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.terms++
	e.mu.Unlock()
	return termProcess{p}, nil
}

type termProcess struct{ Process }

func (termProcess) TerminalID() string { return "editor-terminal" }

// hosts is the table every tool test runs against.
var hosts = []struct {
	name string
	make func() Host
}{
	{"local", func() Host { return LocalHost{} }},
	{"editor", func() Host { return newEditorHost() }},
}

// env is a workspace with the built-in tools registered in a session scope
// and a pipeline to call them through.
type env struct {
	t     testing.TB
	dir   string
	ws    *workspace.Workspace
	host  Host
	reg   *registry.Registry
	p     *pipeline.Pipeline
	scope *registry.Scope
}

func newEnv(t testing.TB, h Host, opts ...func(*Options)) *env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	scope := reg.NewScope("session", nil)
	o := Options{Workspace: ws, Host: h}
	for _, f := range opts {
		f(&o)
	}
	dispose, err := Register(reg, scope, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dispose)
	e := &env{t: t, dir: dir, ws: ws, host: h, reg: reg, scope: scope}
	e.setPipeline()
	return e
}

// setPipeline gives the env a new pipeline.
func (e *env) setPipeline(opts ...pipeline.Option) {
	e.p = pipeline.New(e.reg, opts...)
}

func (e *env) write(rel, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) call(name, args string) registry.Result {
	return e.callCtx(context.Background(), name, args)
}

func (e *env) callCtx(ctx context.Context, name, args string) registry.Result {
	return e.p.Execute(ctx, pipeline.Call{CallID: "call", Name: name, Arguments: []byte(args), Scope: e.scope})
}

func text(r registry.Result) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.TextValue())
	}
	return strings.Join(parts, "|")
}

func wantOK(t *testing.T, r registry.Result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("failed: %s", r.Error.Message)
	}
	return text(r)
}

func wantErr(t *testing.T, r registry.Result, code, msg string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("succeeded with %q, want %s", text(r), code)
	}
	got := ""
	if r.Error.Info != nil {
		got = r.Error.Info.Code
	}
	if got != code || !strings.Contains(r.Error.Message, msg) {
		t.Errorf("got %s %q, want %s containing %q", got, r.Error.Message, code, msg)
	}
}

// golden compares got with testdata/<test name>.golden (refreshed with
// -update), after replacing the workspace path with $WORKSPACE and, on
// Windows, the separators of the paths below it with "/": one golden for
// every platform, paths apart.
func (e *env) golden(got string) {
	e.t.Helper()
	got = strings.ReplaceAll(got, e.dir, "$WORKSPACE")
	if filepath.Separator != '/' {
		got = workspacePaths.ReplaceAllStringFunc(got, filepath.ToSlash)
	}
	name := e.t.Name()
	for _, h := range hosts { // one golden for both hosts
		name = strings.Replace(name, "/"+h.name+"/", "/", 1)
		name = strings.TrimSuffix(name, "/"+h.name)
	}
	path := filepath.Join("testdata", filepath.FromSlash(name)+".golden")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			e.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		e.t.Errorf("model-facing text differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func (e *env) presenters(name, args string, r registry.Result) (card.CallView, card.ResultView) {
	t := e.reg.Get(name, e.scope)
	a := jsonv.MustParse(args)
	var call card.CallView
	if t.PresentCall != nil {
		call = t.PresentCall(a)
	}
	var res card.ResultView
	if t.PresentResult != nil {
		res = t.PresentResult(a, registry.ToolResult{Content: r.Content, IsError: r.IsError, Meta: r.Meta})
	}
	return call, res
}

func processGone(marker string) bool { return proctest.Gone(marker) }

func processRunning(marker string) bool { return proctest.Running(marker) }
