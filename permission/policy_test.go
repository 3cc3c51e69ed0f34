package permission

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

func jargs(kv ...string) jsonv.Value {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	v, _ := jsonv.FromGo(m)
	return v
}

func TestPolicy_Paths(t *testing.T) {
	p, reg, scope, dir := testPolicy(t, ModeAccept, []string{"edit(src/**)", "write(/**)"}, nil, []string{"read(secrets/**)", "grep(secrets/**)"})
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "secrets"), 0o755)
	os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("k"), 0o600)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	linked := fsprobe.Symlink(t, filepath.Join(dir, "secrets"), filepath.Join(dir, "alias"))
	linked = fsprobe.Symlink(t, outside, filepath.Join(dir, "src", "out")) && linked
	ctx := context.Background()
	for _, tc := range []struct {
		name, tool string
		args       jsonv.Value
		want       Verdict
	}{
		{"read in a denied tree", "read", jargs("file_path", "secrets/key"), Deny},
		{"read through a symlink alias", "read", jargs("file_path", "alias/key"), Deny},
		{"read through an absolute path", "read", jargs("file_path", filepath.Join(dir, "secrets", "key")), Deny},
		{"read with ..", "read", jargs("file_path", "src/../secrets/key"), Deny},
		{"grep on the denied root", "grep", jargs("pattern", "x", "path", "secrets"), Deny},
		{"grep through the alias", "grep", jargs("pattern", "x", "path", "alias"), Deny},
		{"edit in a denied tree (read rules cover every reader)", "edit", jargs("file_path", "secrets/key", "old_string", "k", "new_string", "j"), Deny},
		{"write in a denied tree", "write", jargs("file_path", "alias/new", "content", ""), Deny},
		{"glob in a denied tree", "glob", jargs("pattern", "*", "path", "secrets"), Deny},
		{"grep of the workspace runs (the host hides the tree)", "grep", jargs("pattern", "x"), Allow},
		{"allow edit(src/**) covers src", "edit", jargs("file_path", "src/a.go", "old_string", "a", "new_string", "b"), Allow},
		{"allow edit(src/**) does not cover a symlink out", "edit", jargs("file_path", "src/out/a.go", "old_string", "a", "new_string", "b"), Ask},
		{"a user write(/**) rule covers outside", "write", jargs("file_path", filepath.Join(outside, "x"), "content", ""), Allow},
		{"protected: .dsh settings", "write", jargs("file_path", ".dsh/settings.json", "content", "{}"), Ask},
		{"protected: git hooks", "write", jargs("file_path", ".git/hooks/pre-commit", "content", ""), Ask},
		{"protected: a submodule's hooks", "write", jargs("file_path", ".git/modules/lib/hooks/pre-commit", "content", ""), Ask},
		{"protected: .git/config", "edit", jargs("file_path", ".git/config", "old_string", "a", "new_string", "b"), Ask},
		{"protected: .envrc", "write", jargs("file_path", "sub/.envrc", "content", ""), Ask},
		{"protected: .vscode/tasks.json", "write", jargs("file_path", ".vscode/tasks.json", "content", ""), Ask},
		{"protected: a new file in .vscode (mcp.json)", "write", jargs("file_path", ".vscode/mcp.json", "content", ""), Ask},
		{"protected: Zed's project settings", "write", jargs("file_path", ".zed/settings.json", "content", ""), Ask},
		{"protected: another agent's hooks", "write", jargs("file_path", ".claude/settings.json", "content", ""), Ask},
		{"protected: another agent's MCP servers", "write", jargs("file_path", ".mcp.json", "content", ""), Ask},
		{"protected: a file Neovim runs with 'exrc'", "write", jargs("file_path", ".nvim.lua", "content", ""), Ask},
		{"protected: pre-commit's hooks", "write", jargs("file_path", ".pre-commit-config.yaml", "content", ""), Ask},
		{"protected: lefthook's", "write", jargs("file_path", "lefthook.yml", "content", ""), Ask},
		{"protected: mise's", "write", jargs("file_path", "sub/.mise.toml", "content", ""), Ask},
		{"protected: mise's under .config", "write", jargs("file_path", ".config/mise/config.toml", "content", ""), Ask},
		{"protected: .npmrc", "edit", jargs("file_path", ".npmrc", "old_string", "a", "new_string", "b"), Ask},
		{"protected: .yarnrc.yml", "write", jargs("file_path", ".yarnrc.yml", "content", ""), Ask},
		{"protected: .pnpmfile.cjs", "write", jargs("file_path", ".pnpmfile.cjs", "content", ""), Ask},
		{"protected: a dev container", "write", jargs("file_path", ".devcontainer/devcontainer.json", "content", ""), Ask},
		{"not protected: a file named like a folder of them", "write", jargs("file_path", "mise.toml.bak", "content", ""), Allow},
		{"acceptEdits: a plain edit inside runs", "write", jargs("file_path", "notes.md", "content", ""), Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "alias") || strings.Contains(tc.name, "symlink") || tc.name == "write in a denied tree" {
				fsprobe.NeedLinks(t, linked)
			}
			d := p.Decide(ctx, reg.Get(tc.tool, scope), tc.args)
			if d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
			if tc.want == Ask && len(d.Keys) > 0 && strings.Contains(tc.name, "protected") {
				t.Errorf("a protected write offers always-keys %q", d.Keys)
			}
		})
	}
	t.Run("host level", func(t *testing.T) {
		for _, path := range []string{filepath.Join(dir, "secrets"), filepath.Join(dir, "secrets", "key")} {
			if p.CheckPath(path, false) == nil {
				t.Errorf("CheckPath(%s) allowed", path)
			}
		}
		if p.CheckPath(filepath.Join(dir, "src", "a.go"), true) != nil {
			t.Errorf("CheckPath refused an ordinary file")
		}
		if got := p.DeniedTrees(); len(got) != 1 || got[0] != filepath.Join(dir, "secrets") {
			t.Errorf("denied trees %q", got)
		}
	})
}

func TestPolicy_SymlinkedWorkspaceRoot(t *testing.T) {
	real, _ := filepath.EvalSymlinks(t.TempDir())
	link := filepath.Join(t.TempDir(), "ws")
	fsprobe.NeedLinks(t, fsprobe.Symlink(t, real, link))
	os.MkdirAll(filepath.Join(real, "secrets"), 0o755)
	ws, _ := workspace.New(link)
	r, _ := ParseRule("read(secrets/**)", FromWorkspace)
	p := New(ws, Settings{Deny: []Rule{r}}, func() Mode { return ModeBypass })
	for _, path := range []string{filepath.Join(real, "secrets", "a"), filepath.Join(link, "secrets", "a")} {
		if p.CheckPath(workspace.Resolve(path), false) == nil {
			t.Errorf("%s passes a deny written against the symlinked root", path)
		}
	}
}

func TestSettings_Trust(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	os.MkdirAll(filepath.Join(dir, ".dsh"), 0o755)
	os.WriteFile(filepath.Join(dir, ".dsh", "settings.json"), []byte(`{"permissions":{"allow":["write(/**)","bash"],"deny":["bash(rm:*)"],"ask":["bash(git push:*)"]},"sandbox":{"mode":"off","network":true}}`), 0o644)
	s := LoadSettings(dir)
	if len(s.Allow) != 0 || s.IgnoredAllow != 2 || len(s.Deny) != 2 || len(s.Ask) != 1 || s.Trusted {
		t.Errorf("untrusted: %+v", s)
	}
	if s.Sandbox != SandboxWorkspaceWrite || s.Network {
		t.Errorf("a workspace loosened the sandbox: %q network %v", s.Sandbox, s.Network)
	}
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"trustedWorkspaces":[`+jsonString(filepath.Join(filepath.Dir(dir), "**"))+`],"scrubEnv":["AWS_SECRET_ACCESS_KEY"],"sandbox":{"network":true}}`), 0o600)
	s = LoadSettings(dir)
	if len(s.Allow) != 2 || !s.Trusted || s.IgnoredAllow != 0 || !s.Network || len(s.ScrubEnv) != 1 {
		t.Errorf("trusted: %+v", s)
	}
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"sandbox":{"mode":"chaos"}}`), 0o600)
	if s := LoadSettings(dir); len(s.Problems) != 1 {
		t.Errorf("an unknown sandbox mode must reject the file: %+v", s.Problems)
	}
}

func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "[::ffff:127.0.0.1]": "127.0.0.1", "0.0.0.0": "127.0.0.1", "2130706433": "127.0.0.1",
		"0x7f000001": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "127.1": "127.0.0.1", "0x7f.1": "127.0.0.1",
		"Example.COM.": "example.com", "bücher.de": "xn--bcher-kva.de", "[::]": "::1", "169.254.169.254": "169.254.169.254",
		"0xa9fea9fe": "169.254.169.254", "example.com..": "example.com", "256.1.1.1": "256.1.1.1",
	} {
		if got := CanonicalHost(in); got != want {
			t.Errorf("CanonicalHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPolicy_Fetch(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeDefault, []string{"web_fetch(domain:example.com)"}, nil, []string{"web_fetch(domain:127.0.0.1)"})
	fetch := reg.Get("web_fetch", scope)
	ctx := context.Background()
	for _, tc := range []struct {
		url  string
		want Verdict
	}{
		{"http://127.0.0.1/", Deny}, {"http://[::ffff:127.0.0.1]/", Deny}, {"http://0.0.0.0/", Deny},
		{"http://2130706433/", Deny}, {"http://0x7f000001/", Deny}, {"http://localhost/", Deny},
		{"https://example.com/", Allow}, {"https://docs.example.com/", Allow}, {"https://badexample.com/", Ask},
		{"http://169.254.169.254/", Ask},
	} {
		if d := p.Decide(ctx, fetch, jargs("url", tc.url)); d.Verdict != tc.want {
			t.Errorf("%s: got %v (%s), want %v", tc.url, d.Verdict, d.Reason, tc.want)
		}
	}
	u := func(s string) *url.URL { x, _ := url.Parse(s); return x }
	if err := p.FetchHop(ctx, fetch, u("https://example.com/"), u("http://localhost:8080/")); err == nil || !strings.Contains(err.Error(), "denied by the permission rule") {
		t.Errorf("redirect to a denied host: %v", err)
	}
	p.Remember([]string{"web_fetch:public.test"}, true)
	if err := p.FetchHop(ctx, fetch, u("https://public.test/"), u("http://169.254.169.254/latest")); err == nil || !strings.Contains(err.Error(), "private network") {
		t.Errorf("redirect from an always-allowed host to the metadata address: %v", err)
	}
	if err := p.FetchHop(ctx, fetch, u("https://example.com/a"), u("https://example.com/b")); err != nil {
		t.Errorf("same-host redirect: %v", err)
	}
}

func TestNamesTool(t *testing.T) {
	for _, tc := range []struct {
		rule, tool string
		want       bool
	}{
		{"read", "read", true},
		{"mcp__github__search", "mcp__github__search", true},
		{"mcp__github", "mcp__github__search", true},
		{"mcp__github", "mcp__githubx__search", false},
		{"mcp__github__search", "mcp__github__search_all", false},
		{"mcp__", "mcp____x", false},
		{"mcp__a__b", "mcp__a__b__c", false},
		{"read", "read_more", false},
	} {
		if got := namesTool(tc.rule, tc.tool); got != tc.want {
			t.Errorf("%s names %s: %v, want %v", tc.rule, tc.tool, got, tc.want)
		}
	}
}

// TestPolicy_GuardResolvesOnlyForFileRules: the guard resolves a call's
// paths (a few system calls each) only when a rule about files needs
// them; with one, a link to a denied file is still denied.
func TestPolicy_GuardResolvesOnlyForFileRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deny     []string
		resolved bool
		denied   bool
	}{
		{"no deny rules", nil, false, false},
		{"a rule about commands", []string{"bash(rm:*)"}, false, false},
		{"a rule about reads", []string{"read(secret/**)"}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, reg, scope, dir := testPolicy(t, ModeDefault, nil, nil, tc.deny)
			os.MkdirAll(filepath.Join(dir, "secret"), 0o755)
			os.WriteFile(filepath.Join(dir, "secret", "k"), []byte("k"), 0o644)
			fsprobe.NeedLinks(t, fsprobe.Symlink(t, filepath.Join(dir, "secret", "k"), filepath.Join(dir, "link")))
			args, _ := jsonv.FromGo(map[string]any{"file_path": "link"})
			c := p.prepare(context.Background(), reg.Get("read", scope), args)
			why := p.denied(c)
			if c.resolved != tc.resolved || (why != "") != tc.denied {
				t.Errorf("resolved %v, denied %q; want resolved %v, denied %v", c.resolved, why, tc.resolved, tc.denied)
			}
		})
	}
}

// TestPolicy_DecisionJudgesTheFiles: a decision tells the host what it
// judged of the call's files: the paths it resolved, or every path in
// the mode that allows them all.
func TestPolicy_DecisionJudgesTheFiles(t *testing.T) {
	for _, tc := range []struct {
		mode     Mode
		anywhere bool
	}{{ModeDefault, false}, {ModeBypass, true}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			p, reg, scope, dir := testPolicy(t, tc.mode, nil, nil, nil)
			os.WriteFile(filepath.Join(dir, "real.txt"), []byte("x"), 0o644)
			linked := fsprobe.Symlink(t, filepath.Join(dir, "real.txt"), filepath.Join(dir, "link"))
			if !tc.anywhere {
				fsprobe.NeedLinks(t, linked)
			}
			args, _ := jsonv.FromGo(map[string]any{"file_path": "link"})
			d := p.Decide(context.Background(), reg.Get("read", scope), args)
			want := workspace.Judged{Anywhere: true}
			if !tc.anywhere {
				want = workspace.Judged{Paths: []string{filepath.Join(dir, "real.txt")}}
			}
			if !reflect.DeepEqual(d.Judged, want) {
				t.Errorf("judged %+v, want %+v", d.Judged, want)
			}
		})
	}
}
