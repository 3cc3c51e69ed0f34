//go:build unix

// File names that are not UTF-8 exist on Unix only: Windows names are
// UTF-16.

package tools

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// denyPEM is a PathRules that denies every .pem file and the tree certs
// of one workspace, as read(**/*.pem) and read(certs/**) would.
type denyPEM struct{ certs string }

func (d denyPEM) CheckPath(p string, _ bool) error {
	if strings.HasSuffix(p, ".pem") || p == d.certs || strings.HasPrefix(p, d.certs+"/") {
		return errors.New(p + " is denied")
	}
	return nil
}
func (d denyPEM) DeniedTrees() []string { return []string{d.certs} }

// TestSearch_NonUTF8Names: a file whose name is not valid UTF-8 is judged
// like any other (ripgrep reports its path as bytes), and shown quoted.
func TestSearch_NonUTF8Names(t *testing.T) {
	for _, native := range []bool{false, true} {
		name := "rg"
		if native {
			name = "native"
		} else if ripgrep(false) == "" {
			t.Fatal("ripgrep is not installed: make deps installs it")
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, LocalHost{}, func(o *Options) {
				o.Rules, o.NativeSearch = denyPEM{filepath.Join(o.Workspace.Roots()[0], "certs")}, native
			})
			e.write("caf\xe9/key.pem", "TOPSECRET in a folder\n")
			e.write("k\xe9y.pem", "TOPSECRET at the top\n")
			e.write("certs/server.pem", "TOPSECRET in certs\n")
			e.write("certs/n\xe9.txt", "TOPSECRET in certs, not a pem\n")
			e.write("caf\xe9/notes.txt", "TOPSECRET is a word\n")
			for _, tc := range []struct {
				name, tool, args string
				want             []string
			}{
				{"grep", "grep", `{"pattern":"TOPSECRET"}`, []string{`"caf\xe9/notes.txt"`, "Line 1: TOPSECRET is a word"}},
				{"grep with an include", "grep", `{"pattern":"TOPSECRET","include":"*"}`, []string{`"caf\xe9/notes.txt"`}},
				{"glob", "glob", `{"pattern":"**"}`, []string{`"caf\xe9/notes.txt"`}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					out := text(e.call(tc.tool, tc.args))
					lines := strings.Split(out, "\n")
					for _, w := range tc.want {
						if !slices.Contains(lines, w) {
							t.Errorf("got %q, want a line %q", out, w)
						}
					}
					for _, leak := range []string{"folder", "at the top", "in certs", "pem", "\ufffd"} {
						if strings.Contains(out, leak) {
							t.Errorf("got %q, want nothing of %q", out, leak)
						}
					}
				})
			}
		})
	}
}
