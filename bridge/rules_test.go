package bridge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

func TestRules_PatternsAndPrecedence(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	home, _ := os.UserHomeDir()
	ws, _ := tools.NewWorkspace(dir)
	reg := registry.New()
	scope := reg.NewScope("s", nil)
	if _, err := tools.Register(reg, scope, tools.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	mk := func(allow, ask, deny []string) Rules {
		var r Rules
		for _, l := range []struct {
			in  []string
			out *[]rule
		}{{allow, &r.allow}, {ask, &r.ask}, {deny, &r.deny}} {
			for _, s := range l.in {
				ru, err := parseRule(s)
				if err != nil {
					t.Fatal(err)
				}
				*l.out = append(*l.out, ru)
			}
		}
		return r
	}
	names := []string{"none", "allow", "ask", "deny"}
	for _, tc := range []struct {
		name             string
		allow, ask, deny []string
		tool, args, want string
	}{
		{"bash exact", []string{"bash(npm test)"}, nil, nil, "bash", `{"command":"npm test","description":"d"}`, "allow"},
		{"bash exact is not a prefix", []string{"bash(npm test)"}, nil, nil, "bash", `{"command":"npm test --watch","description":"d"}`, "none"},
		{"bash prefix", []string{"bash(git status:*)"}, nil, nil, "bash", `{"command":"git status --short","description":"d"}`, "allow"},
		{"bash prefix needs a word boundary", []string{"bash(git:*)"}, nil, nil, "bash", `{"command":"gitk","description":"d"}`, "none"},
		{"bare tool name", nil, []string{"bash"}, nil, "bash", `{"command":"ls","description":"d"}`, "ask"},
		{"edit glob", []string{"edit(src/**)"}, nil, nil, "edit", `{"file_path":"src/a/b.go","old_string":"x","new_string":"y"}`, "allow"},
		{"edit glob outside", []string{"edit(src/**)"}, nil, nil, "edit", `{"file_path":"docs/a.md","old_string":"x","new_string":"y"}`, "none"},
		{"absolute path in args, relative glob", []string{"write(src/**)"}, nil, nil, "write", `{"file_path":"` + dir + `/src/x.go","content":""}`, "allow"},
		{"home glob", nil, nil, []string{"read(~/.ssh/**)"}, "read", `{"file_path":"` + home + `/.ssh/id_ed25519"}`, "deny"},
		{"absolute glob", nil, nil, []string{"read(/etc/**)"}, "read", `{"file_path":"/etc/passwd"}`, "deny"},
		{"domain", []string{"web_fetch(domain:example.com)"}, nil, nil, "web_fetch", `{"url":"https://example.com/x"}`, "allow"},
		{"subdomain", []string{"web_fetch(domain:example.com)"}, nil, nil, "web_fetch", `{"url":"https://docs.example.com/x"}`, "allow"},
		{"other domain", []string{"web_fetch(domain:example.com)"}, nil, nil, "web_fetch", `{"url":"https://example.org/"}`, "none"},
		{"lookalike domain", []string{"web_fetch(domain:example.com)"}, nil, nil, "web_fetch", `{"url":"https://badexample.com/"}`, "none"},
		{"deny beats ask and allow", []string{"bash"}, []string{"bash"}, []string{"bash(rm:*)"}, "bash", `{"command":"rm -rf x","description":"d"}`, "deny"},
		{"ask beats allow", []string{"bash(git:*)"}, []string{"bash(git push:*)"}, nil, "bash", `{"command":"git push origin","description":"d"}`, "ask"},
		{"other tool", []string{"read"}, nil, nil, "bash", `{"command":"ls","description":"d"}`, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mk(tc.allow, tc.ask, tc.deny)
			v, _ := r.decide(tc.tool, reg.Get(tc.tool, scope), jsonv.MustParse(tc.args), ws)
			if names[v] != tc.want {
				t.Errorf("got %s, want %s", names[v], tc.want)
			}
		})
	}
	for _, bad := range []string{"bash(", "", "two words", "edit(a"} {
		if _, err := parseRule(bad); err == nil {
			t.Errorf("parseRule(%q) accepted", bad)
		}
	}
}

func TestRules_LoadSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dsh-bridge", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o700)
	os.WriteFile(user, []byte(`{"permissions":{"deny":["bash(rm:*)"]}}`), 0o600)
	os.MkdirAll(filepath.Join(dir, ".dsh"), 0o755)
	os.WriteFile(filepath.Join(dir, ".dsh", "settings.json"), []byte(`{"permissions":{"allow":["bash(ls)","edit(["]}}`), 0o644)
	r, problems := loadRules(dir)
	if len(r.deny) != 1 || len(r.allow) != 0 || len(problems) != 1 {
		t.Errorf("a half-valid file must be ignored whole: rules %+v problems %v", r, problems)
	}
	os.WriteFile(filepath.Join(dir, ".dsh", "settings.json"), []byte(`{"permissions":`), 0o644)
	if _, problems := loadRules(dir); len(problems) != 1 {
		t.Errorf("malformed JSON: %v", problems)
	}
}
