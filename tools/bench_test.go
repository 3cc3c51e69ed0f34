package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

func benchEnv(b *testing.B, dir string, native bool, opts ...func(*Options)) (*pipeline.Pipeline, *registry.Scope) {
	ws, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	reg := registry.New()
	scope := reg.NewScope("bench", nil)
	o := Options{Workspace: ws, NativeSearch: native}
	for _, f := range opts {
		f(&o)
	}
	dispose, err := Register(reg, scope, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(dispose)
	return pipeline.New(reg), scope
}

// BenchmarkGrepGoroot searches $GOROOT/src for a common identifier with
// rg directly, through the grep tool over rg, over rg in its jail (a host
// with a sandbox, a denied tree elsewhere: the helper, its namespace and
// Landlock), and through the native walker: same pattern, same tree,
// alternated in every iteration (the order rotates), medians and ratios
// to rg reported.
func BenchmarkGrepGoroot(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	const pattern = "func NewReader"
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed (make deps)")
	}
	call := pipeline.Call{CallID: "b", Name: "grep", Arguments: []byte(`{"pattern":"` + pattern + `"}`)}
	viaTool := func(native bool, opts ...func(*Options)) func() {
		p, scope := benchEnv(b, root, native, opts...)
		c := call
		c.Scope = scope
		return func() {
			if r := p.Execute(context.Background(), c); r.IsError || !strings.HasPrefix(r.Content[0].TextValue(), "Found") {
				b.Fatal(r.Error, r.Content)
			}
		}
	}
	runs := []struct {
		name string
		run  func()
		took []time.Duration
	}{
		{name: "rg", run: func() {
			cmd := exec.Command(rg, "--no-config", "--json", "--regexp="+pattern)
			cmd.Dir = root
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatal(err)
			}
		}},
		{name: "tool-rg", run: viaTool(false)},
		{name: "tool-rg-jailed", run: viaTool(false, func(o *Options) {
			self, err := os.Executable()
			if err != nil {
				b.Fatal(err)
			}
			secrets := filepath.Join(b.TempDir(), "secrets")
			os.Mkdir(secrets, 0o700)
			o.Host, o.Rules = LocalHost{Sandbox: &Sandbox{Helper: self}}, denyTree{secrets}
		})},
		{name: "tool-native", run: viaTool(true)},
	}
	for _, r := range runs {
		r.run() // warm the page cache outside the timed loop
	}
	i := 0
	for b.Loop() {
		for j := range runs {
			r := &runs[(i+j)%len(runs)]
			t0 := time.Now()
			r.run()
			r.took = append(r.took, time.Since(t0))
		}
		i++
	}
	median := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2]
	}
	rgMedian := median(runs[0].took)
	for _, r := range runs {
		m := median(r.took)
		b.ReportMetric(float64(m.Microseconds())/1000, r.name+"-ms")
		if r.name != "rg" {
			b.ReportMetric(float64(m)/float64(rgMedian), r.name+"/rg")
		}
	}
}

// BenchmarkRead200k reads the first 2,000 lines of a 200,000-line file (the
// whole file is scanned for the exact total).
func BenchmarkRead200k(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&sb, "line %d: some ordinary source text here\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	p, scope := benchEnv(b, dir, false)
	call := pipeline.Call{CallID: "b", Name: "read", Arguments: []byte(`{"file_path":"big.txt"}`), Scope: scope}
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		if r := p.Execute(context.Background(), call); r.IsError {
			b.Fatal(r.Error.Message)
		}
	}
}

// BenchmarkRead100Go reads 100 lines of a real Go file (net/http's
// server.go) four directories deep, through the pipeline: the tool's part
// of what one read costs the bridge (the bridge benchmarks add the cards
// and the wire).
func BenchmarkRead100Go(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	dir := b.TempDir()
	sub := filepath.Join(dir, "internal", "server", "http", "handlers")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "server.go"), []byte(strings.Join(lines[1000:1100], "")), 0o644); err != nil {
		b.Fatal(err)
	}
	p, scope := benchEnv(b, dir, false)
	call := pipeline.Call{CallID: "b", Name: "read", Arguments: []byte(`{"file_path":"internal/server/http/handlers/server.go"}`), Scope: scope}
	b.ReportAllocs()
	for b.Loop() {
		if r := p.Execute(context.Background(), call); r.IsError || r.Meta.Len() == 0 {
			b.Fatalf("read failed or has no meta: %+v", r.Error)
		}
	}
}
