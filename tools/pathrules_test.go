package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
)

// denyTree is a PathRules that denies one resolved tree.
type denyTree struct{ root string }

func (d denyTree) CheckPath(p string, _ bool) error {
	if safepath.Within(p, d.root) {
		return errors.New(p + " is denied")
	}
	return nil
}
func (d denyTree) DeniedTrees() []string { return []string{d.root} }

func TestPathRules_HideDeniedTrees(t *testing.T) {
	for _, native := range []bool{false, true} {
		name := "rg"
		if native {
			name = "native"
		} else if ripgrep(false) == "" {
			t.Fatal("ripgrep is not installed: make deps installs it")
		}
		t.Run(name, func(t *testing.T) {
			var root string
			e := newEnv(t, LocalHost{}, func(o *Options) {
				root = filepath.Join(o.Workspace.Roots()[0], "secrets")
				o.Rules, o.NativeSearch = denyTree{root}, native
			})
			e.write("secrets/key.txt", "needle\n")
			e.write("open/a.txt", "needle\n")
			linked := fsprobe.Symlink(t, root, filepath.Join(e.dir, "alias"))
			for _, args := range []string{`{"pattern":"needle"}`, `{"pattern":"needle","path":"."}`, `{"pattern":"needle","path":"alias"}`, `{"pattern":"needle","path":"secrets"}`} {
				out := text(e.call("grep", args))
				if strings.Contains(out, "key.txt") || (strings.Contains(args, `"path":"."`) && !strings.Contains(out, "open/a.txt")) {
					t.Errorf("grep %s: %q", args, out)
				}
			}
			for _, args := range []string{`{"pattern":"**/*.txt"}`, `{"pattern":"**","path":"alias"}`} {
				if out := text(e.call("glob", args)); strings.Contains(out, "key.txt") {
					t.Errorf("glob %s: %q", args, out)
				}
			}
			if r := e.call("read", `{"file_path":"alias/key.txt"}`); linked && (!r.IsError || !strings.Contains(r.Error.Message, "denied")) {
				t.Errorf("read through the alias: %+v", r)
			}
			r := e.call("write", `{"file_path":"secrets/new.txt","content":"x"}`)
			if _, err := os.Stat(filepath.Join(root, "new.txt")); !r.IsError || err == nil {
				t.Errorf("write into the denied tree: %+v", r)
			}
		})
	}
}

// countingRules is a PathRules that denies one resolved tree and counts
// its judgements.
type countingRules struct {
	denyTree
	n *int
}

func (c countingRules) CheckPath(p string, w bool) error {
	*c.n++
	return c.denyTree.CheckPath(p, w)
}

// TestPathRules_ReadJudgedOnce: a read judges its path once (each
// judgement resolves every component of it), and that once still refuses
// a denied file, whichever way it is named.
func TestPathRules_ReadJudgedOnce(t *testing.T) {
	var n int
	var root string
	e := newEnv(t, LocalHost{}, func(o *Options) {
		root = filepath.Join(o.Workspace.Roots()[0], "secrets")
		o.Rules = countingRules{denyTree{root}, &n}
	})
	e.write("secrets/key.txt", "k\n")
	e.write("open.txt", "a\nb\n")
	linked := fsprobe.Symlink(t, filepath.Join(root, "key.txt"), filepath.Join(e.dir, "link.txt"))
	for _, tc := range []struct {
		name, path string
		denied     bool
		link       bool
	}{
		{"an open file", "open.txt", false, false},
		{"a denied file", "secrets/key.txt", true, false},
		{"a link to a denied file", "link.txt", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.link {
				fsprobe.NeedLinks(t, linked)
			}
			n = 0
			r := e.call("read", `{"file_path":"`+tc.path+`"}`)
			if r.IsError != tc.denied || (tc.denied && !strings.Contains(r.Error.Message, "denied")) {
				t.Errorf("read %s: %+v", tc.path, r)
			}
			if n != 1 {
				t.Errorf("the path was judged %d times, want once", n)
			}
		})
	}
}
