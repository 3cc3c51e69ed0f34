package permission

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// TestCompiled_TreeEdge: a tree rule covers its root and what lies below
// it, and never a sibling whose name merely starts the same, nor the
// folder above it.
func TestCompiled_TreeEdge(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(base, "data", "pub")
	for _, spec := range []string{pub + "/**", "data/pub/**"} {
		r, err := ParseRule("read("+spec+")", FromUser)
		if err != nil {
			t.Fatal(err)
		}
		c := compile(r, base, base, runtime.GOOS).in(workspace.FormOf(runtime.GOOS))
		for _, tc := range []struct {
			path string
			want bool
		}{
			{pub, true},
			{pub + "/key", true},
			{pub + "/a/b/key", true},
			{pub + "-private/key", false},
			{pub + "-private", false},
			{pub + "x", false},
			{pub[:len(pub)-1], false},
			{filepath.Dir(pub), false},
		} {
			t.Run(spec+" "+tc.path, func(t *testing.T) {
				if got := c.matchPath(tc.path); got != tc.want {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// TestPolicy_DeniedTreeSiblings: deny read(secrets/**) keeps out of
// secrets/ in every tool and at the host, and leaves secrets-old/ alone.
func TestPolicy_DeniedTreeSiblings(t *testing.T) {
	p, reg, scope, dir := testPolicy(t, ModeDefault, []string{"bash(cat:*)"}, nil, []string{"read(secrets/**)"})
	for _, d := range []string{"secrets", "secrets-old"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		os.WriteFile(filepath.Join(dir, d, "key"), []byte("k"), 0o600)
	}
	for _, tc := range []struct {
		name, tool, path string
		want             Verdict
	}{
		{"read in the tree", "read", "secrets/key", Deny},
		{"read the sibling", "read", "secrets-old/key", Allow},
		{"grep the tree", "grep", "secrets", Deny},
		{"grep the sibling", "grep", "secrets-old", Allow},
		{"cat from the tree", "bash", "secrets/key", Deny},
		{"cat from the sibling", "bash", "secrets-old/key", Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := jargs("file_path", tc.path)
			switch tc.tool {
			case "grep":
				args = jargs("pattern", "x", "path", tc.path)
			case "bash":
				args = bashArgs("cat < " + tc.path)
			}
			if d := p.Decide(context.Background(), reg.Get(tc.tool, scope), args); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		path string
		want bool // refused
	}{
		{filepath.Join(dir, "secrets"), true},
		{filepath.Join(dir, "secrets", "key"), true},
		{filepath.Join(dir, "secrets-old", "key"), false},
		{filepath.Join(dir, "secretsx"), false},
	} {
		t.Run("CheckPath "+tc.path, func(t *testing.T) {
			if got := p.CheckPath(tc.path, false) != nil; got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTrusts_Edge: a trustedWorkspaces tree entry trusts its root and
// the folders below it, never a sibling whose name starts the same; a
// plain entry trusts that folder alone.
func TestTrusts_Edge(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "work")
	for _, tc := range []struct {
		entry, cwd string
		want       bool
	}{
		{work + "/**", work, true},
		{work + "/**", filepath.Join(work, "a"), true},
		{work + "/**", filepath.Join(work, "a", "b"), true},
		{work + "/**", work + "-evil", false},
		{work + "/**", work + "x", false},
		{work + "/**", base, false},
		{work, work, true},
		{work, filepath.Join(work, "a"), false},
		{work, work + "-evil", false},
		{"work/**", work, false}, // relative entries trust nothing
	} {
		t.Run(tc.entry+" "+tc.cwd, func(t *testing.T) {
			if got := trusts(tc.entry, tc.cwd); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPolicy_CheckPathKinds: at the host, a read deny rule refuses every
// access under its tree, a write deny rule only writes, and neither
// reaches a sibling whose name starts the same.
func TestPolicy_CheckPathKinds(t *testing.T) {
	p, _, _, dir := testPolicy(t, ModeDefault, nil, nil, []string{"read(secrets/**)", "write(out/**)"})
	for _, tc := range []struct {
		path    string
		write   bool
		refused bool
	}{
		{"secrets/key", false, true},
		{"secrets/key", true, true},
		{"secrets-old/key", true, false},
		{"out/x", false, false},
		{"out/x", true, true},
		{"out", true, true},
		{"out-old/x", true, false},
	} {
		t.Run(tc.path+map[bool]string{false: " read", true: " write"}[tc.write], func(t *testing.T) {
			if got := p.CheckPath(filepath.Join(dir, tc.path), tc.write) != nil; got != tc.refused {
				t.Errorf("got refused %v, want %v", got, tc.refused)
			}
		})
	}
}
