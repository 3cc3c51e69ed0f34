//go:build linux

// Tests of ripgrep and the native walker against a tree swapped under
// them: ripgrep confined by the Linux sandbox, symlinks swapped in, a
// ripgrep that is a shell script.

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// fooledRules is a PathRules that lists one denied tree but admits every
// path it is asked about: a judgement that a swap fooled, looking at the
// tree after it was swapped back.
type fooledRules struct{ tree string }

func (fooledRules) CheckPath(string, bool) error { return nil }
func (f fooledRules) DeniedTrees() []string      { return []string{f.tree} }

// TestGrep_RipgrepConfined: on a host with a sandbox, ripgrep runs in a
// jail that denies the session's denied trees, so a search that reaches
// one, by whatever path, reads nothing of it even when the filtering of
// its results is fooled; the failure names no file.
func TestGrep_RipgrepConfined(t *testing.T) {
	if ripgrep(false) == "" {
		t.Fatal("ripgrep is not installed: make deps installs it")
	}
	if sandbox.ABI() == 0 {
		t.Fatal("this machine's kernel has no Landlock; the sandbox tests need it (platform-notes.md: ABI 7)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, LocalHost{Sandbox: &Sandbox{Helper: self}}, func(o *Options) {
		o.Rules = fooledRules{filepath.Join(o.Workspace.Roots()[0], "secrets")}
	})
	e.write("secrets/key.txt", "TOPSECRET=hunter2\n")
	e.write("open/a.txt", "TOPSECRET is a word\n")
	os.Symlink(filepath.Join(e.dir, "secrets"), filepath.Join(e.dir, "alias"))
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"grep in the tree", "grep", `{"pattern":"TOPSECRET","path":"secrets"}`, ""},
		{"grep through a symlink", "grep", `{"pattern":"TOPSECRET","path":"alias"}`, ""},
		{"grep of the workspace", "grep", `{"pattern":"TOPSECRET"}`, "open/a.txt"},
		{"glob in the tree", "glob", `{"pattern":"**","path":"secrets"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := text(e.call(tc.tool, tc.args))
			for _, leak := range []string{"hunter2", "key.txt"} {
				if strings.Contains(out, leak) {
					t.Errorf("got %q, want nothing of %q", out, leak)
				}
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("got %q, want %q", out, tc.want)
			}
		})
	}
}

// swapRules denies one tree, and once it has admitted the file at swap
// it swaps that file's folder for a symlink to the tree: a command
// beside the search, between the judgement of a file and its read.
type swapRules struct {
	denyTree
	swap string
	once sync.Once
	t    *testing.T
}

func (s *swapRules) CheckPath(p string, w bool) error {
	err := s.denyTree.CheckPath(p, w)
	if err == nil && p == s.swap {
		s.once.Do(func() {
			dir := filepath.Dir(p)
			if err := os.Rename(dir, dir+".real"); err != nil {
				s.t.Fatal(err)
			}
			if err := os.Symlink(s.root, dir); err != nil {
				s.t.Fatal(err)
			}
		})
	}
	return err
}

// TestGrep_NativeWalkerHoldsItsFolders: the native walker reads the file
// in the folder it listed, not whatever its path names by the time it
// reads (a folder swapped for a symlink to a denied tree).
func TestGrep_NativeWalkerHoldsItsFolders(t *testing.T) {
	rules := &swapRules{t: t}
	e := newEnv(t, LocalHost{}, func(o *Options) {
		rules.root = filepath.Join(o.Workspace.Roots()[0], "secrets")
		rules.swap = filepath.Join(o.Workspace.Roots()[0], "d", "zz", "key.txt")
		o.Rules, o.NativeSearch = rules, true
	})
	e.write("secrets/key.txt", "TOPSECRET=hunter2\n")
	e.write("d/zz/key.txt", "TOPSECRET is a decoy\n")
	out := text(e.call("grep", `{"pattern":"TOPSECRET"}`))
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "decoy") {
		t.Errorf("got %q, want the decoy alone", out)
	}
	if _, err := os.Lstat(filepath.Join(e.dir, "d", "zz.real")); err != nil {
		t.Errorf("the folder was never swapped: the test tested nothing")
	}
}

// TestGrep_RipgrepStderrWithheld: what ripgrep writes to stderr (names of
// files it failed on, which a swap can put in a denied tree) never
// reaches the model; a failure is told by its exit status.
func TestGrep_RipgrepStderrWithheld(t *testing.T) {
	e := newEnv(t, LocalHost{})
	named := filepath.Join(e.dir, "d", "zz", "only-in-secrets.txt")
	fake := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho '"+named+": No such file or directory (os error 2)' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := grepRG(t.Context(), fake, searchJail{}, e.ws, nil, rootOf(e.ws, ""), "TOPSECRET", "")
	if err == nil || strings.Contains(err.Error(), "only-in-secrets") || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("got %v, want a failure with the exit status and no file name", err)
	}
}
