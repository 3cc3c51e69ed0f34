package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/lsp"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
)

// BenchmarkEditNoServer edits a file no language server checks (.txt)
// through the pipeline, alternating two texts: without a Checker (the
// tools as they were) and with the session's manager of the built-in
// servers, which starts none for it. The peers run in the same
// benchmark, one after the other.
func BenchmarkEditNoServer(b *testing.B) {
	for _, tc := range []struct {
		name    string
		checker bool
	}{{"checker=none", false}, {"checker=lsp", true}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			var opts []func(*Options)
			if tc.checker {
				m := lsp.New(lsp.Options{Roots: []string{dir}, Servers: lsp.Builtins()})
				b.Cleanup(m.Close)
				opts = append(opts, func(o *Options) { o.Checker = m })
			}
			p, scope := benchEnv(b, dir, false, opts...)
			calls := []pipeline.Call{
				{CallID: "a", Name: "edit", Arguments: []byte(`{"file_path":"notes.txt","old_string":"beta","new_string":"BETA"}`), Scope: scope},
				{CallID: "b", Name: "edit", Arguments: []byte(`{"file_path":"notes.txt","old_string":"BETA","new_string":"beta"}`), Scope: scope},
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if r := p.Execute(context.Background(), calls[i%2]); r.IsError {
					b.Fatal(r.Error.Message)
				}
				i++
			}
		})
	}
}
