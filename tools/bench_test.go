package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func benchEnv(b *testing.B, dir string, native bool) (*pipeline.Pipeline, *registry.Scope) {
	ws, err := NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	reg := registry.New()
	scope := reg.NewScope("bench", nil)
	dispose, err := Register(reg, scope, Options{Workspace: ws, NativeSearch: native})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(dispose)
	return pipeline.New(reg), scope
}

// BenchmarkGrepGoroot searches $GOROOT/src for a common identifier through
// the grep tool (ripgrep and native) and with rg directly, same pattern,
// same tree.
func BenchmarkGrepGoroot(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	const pattern = "func NewReader"
	call := pipeline.Call{CallID: "b", Name: "grep", Arguments: []byte(`{"pattern":"` + pattern + `"}`)}
	b.Run("rg-direct", func(b *testing.B) {
		rg, err := exec.LookPath("rg")
		if err != nil {
			b.Skip("rg not installed")
		}
		run := func() {
			cmd := exec.Command(rg, "--no-config", "--json", "--regexp="+pattern)
			cmd.Dir = root
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatal(err)
			}
		}
		run() // warm the page cache outside the timed loop
		for b.Loop() {
			run()
		}
	})
	for _, native := range []bool{false, true} {
		name := "tool-rg"
		if native {
			name = "tool-native"
		} else if _, err := exec.LookPath("rg"); err != nil {
			continue
		}
		b.Run(name, func(b *testing.B) {
			p, scope := benchEnv(b, root, native)
			call.Scope = scope
			p.Execute(context.Background(), call) // warm-up
			for b.Loop() {
				if r := p.Execute(context.Background(), call); r.IsError || !strings.HasPrefix(r.Content[0].TextValue(), "Found") {
					b.Fatal(r.Error, r.Content)
				}
			}
		})
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
