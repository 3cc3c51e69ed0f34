package main

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The most any package's initialisation may take, in time and in
// allocations: start-up must not do work that `initialize` does not need.
// (The allocation count does not depend on the machine's load.)
const (
	initBudgetMs     = 1.0
	initBudgetAllocs = 1000
)

// overBudget are the packages known to break the budget, with the reason.
// Each must still be over it (so that the entry goes once it is fixed).
var overBudget = map[string]string{}

// slowButSmall are packages whose init is near the time budget on this
// machine kind, the fastest of five runs landing on either side of it, so
// that only the allocation budget (which does not depend on the load) can
// judge them without flaking. Each must still be linked.
var slowButSmall = map[string]string{
	"encoding/gob": "the standard library's registry of its wire types, 0.55-1.1 ms here; linked by the MCP SDK, not by us",
}

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, (\d+) bytes, (\d+) allocs$`)

// buildBinary builds dsh-bridge, and its helpers dsh-highlight and dsh-code
// next to it (where the bridge looks for them first), and returns the
// bridge's path.
func buildBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// The helpers are no dependency of this package: their sources are
	// opened here so that the test cache sees them (go build's reads it
	// cannot).
	for _, pattern := range []string{"../dsh-highlight/*.go", "../../highlight/chromatok/*.go", "../dsh-code/*.go", "../../codemode/jsvm/*.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if _, err := os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
	}
	build := exec.Command("go", "build", "-o", dir+"/", ".", "../dsh-highlight", "../dsh-code")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as shipped
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "dsh-bridge")
}

// TestStartup_HelpersStayOut keeps the heavy engines out of the bridge,
// each in the one helper that needs it: chroma's lexers (17 ms and 2.7 MB
// at every start, and every supervised command's) only in dsh-highlight;
// esbuild and goja (16 MB of binary, 4 ms and 10 MiB at start) only in
// dsh-code; the HTML parser (x/net/html's entity table, 0.7 ms at every
// start) only in dsh-markdown.
func TestStartup_HelpersStayOut(t *testing.T) {
	engines := map[string]string{
		"github.com/alecthomas/chroma/v2/lexers": "../dsh-highlight",
		"github.com/evanw/esbuild/pkg/api":       "../dsh-code",
		"github.com/dop251/goja":                 "../dsh-code",
		"golang.org/x/net/html":                  "../dsh-markdown",
	}
	deps := map[string]string{}
	for _, pkg := range []string{".", "../dsh-highlight", "../dsh-code", "../dsh-markdown"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		deps[pkg] = string(out)
	}
	for engine, home := range engines {
		for pkg, list := range deps {
			if got, want := strings.Contains(list, engine+"\n"), pkg == home; got != want {
				t.Errorf("%s links %s: %v, want %v", pkg, engine, got, want)
			}
		}
	}
}

// TestStartup_InitBudget runs the binary under GODEBUG=inittrace=1 and
// fails when a package's init takes more than initBudgetMs (the fastest of
// five runs, so that a descheduled moment is not blamed on a package).
// It checks what runs at init, not how fast this machine is.
func TestStartup_InitBudget(t *testing.T) {
	bin := buildBinary(t)
	fastest := map[string]float64{}
	allocs := map[string]int{}
	for range 5 {
		cmd := exec.Command(bin, "__dsh-no-such-command")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		out, _ := cmd.CombinedOutput() // exits 2: an unknown subcommand
		n := 0
		for sc := bufio.NewScanner(strings.NewReader(string(out))); sc.Scan(); {
			m := initLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			n++
			ms, _ := strconv.ParseFloat(m[2], 64)
			allocs[m[1]], _ = strconv.Atoi(m[4])
			if old, ok := fastest[m[1]]; !ok || ms < old {
				fastest[m[1]] = ms
			}
		}
		if n < 50 {
			t.Fatalf("only %d init lines in the trace:\n%s", n, out)
		}
	}
	if _, ok := fastest["github.com/dsh-bridge/dsh-bridge/registry"]; !ok {
		t.Fatal("the trace does not list our own packages")
	}
	for pkg, ms := range fastest {
		why, known := overBudget[pkg]
		_, small := slowButSmall[pkg]
		over := (ms > initBudgetMs && !small) || allocs[pkg] > initBudgetAllocs
		switch {
		case over && !known:
			t.Errorf("init of %s takes %.2f ms and %d allocations (budget %.1f ms, %d): build what it builds lazily", pkg, ms, allocs[pkg], initBudgetMs, initBudgetAllocs)
		case known && !over:
			t.Errorf("%s now initialises in %.2f ms and %d allocations: remove it from overBudget (%s)", pkg, ms, allocs[pkg], why)
		}
	}
	for pkg := range overBudget {
		if _, ok := fastest[pkg]; !ok {
			t.Errorf("%s is no longer linked: remove it from overBudget", pkg)
		}
	}
	for pkg := range slowButSmall {
		if _, ok := fastest[pkg]; !ok {
			t.Errorf("%s is no longer linked: remove it from slowButSmall", pkg)
		}
	}
}

// runtimeFiles are what the Go runtime and the dynamic loader open before
// any package initialises (libc for the cgo the sandbox needs, cgroup
// limits for GOMAXPROCS).
var runtimeFiles = []string{"/etc/ld.so.", "/lib/", "/lib64/", "/usr/lib/", "/proc/self/maps", "/proc/self/cgroup", "/proc/self/mountinfo", "/sys/kernel/mm/transparent_hugepage/", "/sys/fs/cgroup/"}

// TestStartup_NoIOAtInit runs the binary under strace with a command line
// that ends at once (an unknown subcommand): any file, socket or process
// system call beyond the loader's and the runtime's is I/O done at init.
func TestStartup_NoIOAtInit(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("strace is not installed (make deps installs it)")
		}
		t.Skip("strace is not installed (make deps installs it)")
	}
	bin := buildBinary(t)
	trace := filepath.Join(t.TempDir(), "trace")
	out, err := exec.Command(strace, "-f", "-qq", "-e", "trace=%file,%network,%process", "-o", trace, bin, "__dsh-no-such-command").CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("strace: %v\n%s", err, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for line := range strings.Lines(string(data)) {
		_, call, _ := strings.Cut(strings.TrimSpace(line), " ")
		call = strings.TrimSpace(call)
		switch {
		case strings.HasPrefix(call, "execve("), strings.HasPrefix(call, "clone"), strings.HasPrefix(call, "exit"),
			strings.HasPrefix(call, "tgkill("), strings.HasPrefix(call, "kill("), // the runtime's preemption signals
			strings.HasPrefix(call, "+++"), strings.HasPrefix(call, "---"), strings.HasPrefix(call, "<..."):
			continue // the start itself, the runtime's threads, the exit
		case strings.HasPrefix(call, "access(\"/etc/ld.so.preload\""):
			continue
		case strings.HasPrefix(call, `openat(AT_FDCWD, "/proc/self/stat", O_RDONLY|O_CLOEXEC)`),
			strings.HasPrefix(call, `openat(AT_FDCWD, "/proc/self/mem", O_WRONLY|O_CLOEXEC)`):
			continue // main's first step, not init's: secrets.HideProcess blanks the key's blocks
		}
		calls++
		if !runtimeOnly(call) {
			t.Errorf("I/O before main: %s", strings.TrimSpace(line))
		}
	}
	if calls == 0 {
		t.Fatalf("the trace shows no file call at all, not even the runtime's:\n%s", data)
	}
}

func runtimeOnly(call string) bool {
	_, rest, ok := strings.Cut(call, "\"")
	if !ok || !(strings.HasPrefix(call, "openat(") || strings.HasPrefix(call, "newfstatat(") || strings.HasPrefix(call, "readlinkat(")) {
		return strings.HasPrefix(call, "newfstatat(3, \"\"") || strings.HasPrefix(call, "newfstatat(4, \"\"")
	}
	path, _, _ := strings.Cut(rest, "\"")
	if path == "" {
		return true // fstat of a descriptor the runtime opened
	}
	for _, p := range runtimeFiles {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// TestStartup_NoInitFunctions: no package of ours has an init function or
// a package-level variable whose initialiser calls into the file system,
// the network or processes. (The two tests above see the whole binary;
// this one names the line.)
func TestStartup_NoInitFunctions(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ioPkgs := map[string]bool{"os": true, "exec": true, "net": true, "http": true, "syscall": true, "ioutil": true, "fs": true}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		main := f.Name.Name == "main"
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" && !main {
					t.Errorf("%s: an init function", fset.Position(d.Pos()))
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				ast.Inspect(d, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false // runs when called, not at init
					}
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && ioPkgs[id.Name] && sel.Sel.Name != "Getenv" {
							t.Errorf("%s: package variable initialised with %s.%s", fset.Position(call.Pos()), id.Name, sel.Sel.Name)
						}
					}
					return true
				})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d files", files)
	}
}
