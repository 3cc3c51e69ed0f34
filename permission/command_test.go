package permission

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// testPolicy is a policy over a fresh workspace with the given rules, in
// mode, and the session's bash tool.
func testPolicy(t testing.TB, mode Mode, allow, ask, deny []string) (*Policy, *registry.Registry, *registry.Scope, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	ws, _ := workspace.New(dir)
	reg := registry.New()
	scope := reg.NewScope("s", nil)
	if _, err := tools.Register(reg, scope, tools.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	var s Settings
	for _, l := range []struct {
		in  []string
		out *[]Rule
	}{{allow, &s.Allow}, {ask, &s.Ask}, {deny, &s.Deny}} {
		for _, text := range l.in {
			r, err := ParseRule(text, FromUser)
			if err != nil {
				t.Fatal(err)
			}
			*l.out = append(*l.out, r)
		}
	}
	return New(ws, s, func() Mode { return mode }), reg, scope, dir
}

func bashArgs(cmd string) jsonv.Value {
	v, err := jsonv.FromGo(map[string]any{"command": cmd, "description": "d"})
	if err != nil {
		panic(err)
	}
	return v
}

// TestPolicy_Commands is the shell-aware matcher: each case is a command
// and the verdict under one set of rules. The first block holds the
// bypasses found by the adversarial run.
func TestPolicy_Commands(t *testing.T) {
	allowGit := []string{"bash(git status:*)", "bash(npm test)", "bash(go test:*)", "bash(ls:*)", "bash(cat:*)"}
	denyRm := []string{"bash(rm:*)", "bash(curl:*)", "bash(git push:*)"}
	cases := []struct {
		cmd  string
		mode Mode
		want Verdict
	}{
		// Bypasses of allow bash(git status:*): each must ask.
		{"git status && touch p", ModeDefault, Ask},
		{"git status | sh", ModeDefault, Deny}, // sh reads code no deny rule can check
		{"git status $(touch p)", ModeDefault, Ask},
		{"git status `touch p`", ModeDefault, Ask},
		{"git status > file", ModeDefault, Ask}, // an edit, inside the workspace: edits ask in default
		{"git status > file", ModeAccept, Allow},
		{"git status > /tmp/outside-file", ModeDefault, Ask},
		{"git status > ../outside", ModeDefault, Ask},
		{"git status; touch p", ModeDefault, Ask},
		{"git status\ntouch p", ModeDefault, Ask},
		{"git status || touch p", ModeDefault, Ask},
		{"git status & touch p", ModeDefault, Ask},
		{"git status <(touch p)", ModeDefault, Ask},
		{"git status >(touch p)", ModeDefault, Ask},
		// Bypasses of deny bash(rm:*), in bypassPermissions: each must deny.
		{"ls; rm x", ModeBypass, Deny},
		{"FOO=1 rm x", ModeBypass, Deny},
		{"/bin/rm x", ModeBypass, Deny},
		{`\rm x`, ModeBypass, Deny},
		{"command rm x", ModeBypass, Deny},
		{"bash -c 'rm x'", ModeBypass, Deny},
		{"(rm x)", ModeBypass, Deny},
		{"xargs rm < list", ModeBypass, Deny},
		{"ls\nrm x", ModeBypass, Deny},
		{"sh -c \"rm x\"", ModeBypass, Deny},
		{"ls | xargs rm", ModeBypass, Deny},
		{"'rm' x", ModeBypass, Deny},
		{`"rm" x`, ModeBypass, Deny},
		{"r''m x", ModeBypass, Deny},
		{`$'\x72m' x`, ModeBypass, Deny},
		{`$'\162m' x`, ModeBypass, Deny},
		{"./rm x", ModeBypass, Deny},
		{"env rm x", ModeBypass, Deny},
		{"env -i FOO=1 rm x", ModeBypass, Deny},
		{"env -S 'rm x'", ModeBypass, Deny},
		{"nohup rm x", ModeBypass, Deny},
		{"nice -n 5 rm x", ModeBypass, Deny},
		{"timeout 5 rm x", ModeBypass, Deny},
		{"timeout -s KILL 5 rm x", ModeBypass, Deny},
		{"time rm x", ModeBypass, Deny},
		{"exec rm x", ModeBypass, Deny},
		{"builtin rm x", ModeBypass, Deny},
		{"sudo rm x", ModeBypass, Deny},
		{"sudo -u root rm x", ModeBypass, Deny},
		{"stdbuf -o0 rm x", ModeBypass, Deny},
		{"find . -name x -exec rm {} ;", ModeBypass, Deny},
		{"find . -execdir rm {} +", ModeBypass, Deny},
		{"eval 'rm x'", ModeBypass, Deny},
		{"eval \"$CMD\"", ModeBypass, Deny},
		{"$CMD x", ModeBypass, Deny},
		{"${CMD} x", ModeBypass, Deny},
		{"$(echo rm) x", ModeBypass, Deny},
		{"/bin/r? x", ModeBypass, Deny},
		{"{rm,x}", ModeBypass, Deny},
		{"echo rm x | sh", ModeBypass, Deny},
		{"echo rm x | bash -s", ModeBypass, Deny},
		{"bash <<< 'rm x'", ModeBypass, Deny},
		{"if true; then rm x; fi", ModeBypass, Deny},
		{"for f in a; do rm $f; done", ModeBypass, Deny},
		{"while false; do :; done; rm x", ModeBypass, Deny},
		{"f() { rm x; }; f", ModeBypass, Deny},
		{"{ rm x; }", ModeBypass, Deny},
		{"! rm x", ModeBypass, Deny},
		{"case a in a) rm x;; esac", ModeBypass, Deny},
		{"echo $(rm x)", ModeBypass, Deny},
		{"echo \"$(rm x)\"", ModeBypass, Deny},
		{"a=$(rm x)", ModeBypass, Deny},
		{"export A=$(rm x)", ModeBypass, Deny},
		{"trap 'rm x' EXIT", ModeBypass, Deny},
		{"bash -c 'bash -c \"rm x\"'", ModeBypass, Deny},
		{"bash -lc 'rm x'", ModeBypass, Deny},
		{"bash -e -c 'rm x'", ModeBypass, Deny},
		{"coproc rm x", ModeBypass, Deny},
		{"rm", ModeBypass, Deny},
		{"rm -rf /", ModeDefault, Deny},
		{"rm x", ModePlan, Deny},
		{"busybox rm x", ModeBypass, Deny},
		{"echo 'rm x' > s.sh; sh s.sh; rm x", ModeBypass, Deny},
		{"rm x 'unterminated", ModeBypass, Deny}, // unparsable, but its words name rm
		// Hidden in arithmetic and subscripts (arith.go; every form in arith_test.go).
		{`[[ 'a[$(rm v)]' -eq 0 ]]`, ModeBypass, Deny},
		{`printf -v 'a[$(rm v)]' x`, ModeBypass, Deny},
		{`test -v 'a[$(rm v)]'`, ModeBypass, Deny},
		{`declare -i n; n='a[$(rm v)]'`, ModeBypass, Deny},
		{`read 'a[$(rm v)]' <<< x`, ModeBypass, Deny},
		{`git status; printf -v 'a[$(touch p)]' x`, ModeDefault, Deny}, // opaque, and a deny rule exists
		{"curl http://127.0.0.1/", ModeBypass, Deny},
		{"git push origin main", ModeBypass, Deny},
		{"git -C . push", ModeDefault, Ask}, // words differ: not the rule's spelling, so it asks
		{"sudo git push", ModeBypass, Deny},
		// Not denied: rm appears only as data.
		{"echo rm", ModeBypass, Allow},
		{"grep rm file.txt", ModeBypass, Allow},
		{"ls rmdir", ModeBypass, Allow},
		{"rmdir x", ModeBypass, Allow},
		{"git status", ModeBypass, Allow},
		{"[ -f go.mod ] && git status", ModeBypass, Allow}, // a [ nothing closes is no glob
		{"/bin/[a] x", ModeBypass, Deny},
		{"ls 'unterminated", ModeBypass, Deny}, // unparsable with deny rules: refused unless plainly written
		// Allowed without asking when every command is covered.
		{"git status", ModeDefault, Allow},
		{"git status --short", ModeDefault, Allow},
		{"git status && git status -s", ModeDefault, Allow},
		{"npm test", ModeDefault, Allow},
		{"go test ./...", ModeDefault, Allow},
		{"go test ./... 2>&1", ModeDefault, Allow},
		{"go test ./... > /dev/null", ModeDefault, Allow},
		{"go test ./... 2>/dev/null", ModeDefault, Allow},
		{"ls -la | cat", ModeDefault, Allow},
		{"cd sub && ls", ModeDefault, Allow},
		{"set -euo pipefail; go test ./...", ModeDefault, Allow},
		{"git status; echo done", ModeDefault, Allow},
		{"[ -d .git ] && git status", ModeDefault, Allow},
		{"FOO=1 go test ./...", ModeDefault, Allow},
		{"nohup go test ./...", ModeDefault, Allow},
		{"timeout 60 go test ./...", ModeDefault, Allow},
		{"/usr/bin/git status", ModeDefault, Allow},
		{"ls > out.txt", ModeDefault, Ask},
		{"ls > out.txt", ModeAccept, Allow},
		// Asked: something is not covered.
		{"npm test --watch", ModeDefault, Ask},
		{"echo --watch | xargs npm test", ModeDefault, Ask}, // xargs adds words an exact rule cannot see
		{"echo --watch | xargs nohup npm test", ModeDefault, Ask},
		{"xargs -a list npm test", ModeDefault, Ask},
		{"git status | xargs git status", ModeDefault, Allow}, // a prefix rule covers more words
		{"npm test; npm publish", ModeDefault, Ask},
		{"go build", ModeDefault, Ask},
		{"git log", ModeDefault, Ask},
		{"gitk", ModeDefault, Ask},
		{"./git status", ModeDefault, Ask},
		{"/tmp/git status", ModeDefault, Ask},
		{"PATH=/tmp:$PATH git status", ModeDefault, Deny},              // later code unseen: a deny rule cannot be checked
		{"export PATH=/tmp; git status", ModeDefault, Deny},            // later code unseen: a deny rule cannot be checked
		{"LD_PRELOAD=/tmp/x.so git status", ModeDefault, Deny},         // later code unseen: a deny rule cannot be checked
		{"GIT_PAGER='touch p' git status", ModeDefault, Deny},          // later code unseen: a deny rule cannot be checked
		{"GIT_PROXY_COMMAND='touch p' git status", ModeDefault, Deny},  // later code unseen: a deny rule cannot be checked
		{"npm_config_script_shell=/tmp/x npm test", ModeDefault, Deny}, // later code unseen: a deny rule cannot be checked
		{"git status $X", ModeDefault, Allow},                          // a computed argument after a prefix rule
		{"npm $X", ModeDefault, Ask},
		{"eval 'git status'", ModeDefault, Ask},
		{"eval 'rm x'", ModeDefault, Deny},
		{"eval git status", ModeDefault, Ask},
		{"trap 'git status' EXIT", ModeDefault, Ask},
		{"git status | tee out.txt", ModeDefault, Ask},
		{"git status | cat > out.txt", ModeAccept, Allow},
		{"git status 2>&1 | cat", ModeDefault, Allow},
		{"git status && rm x", ModeDefault, Deny},
		{"git status > /dev/stderr", ModeDefault, Allow},
		{"git status &> out.txt", ModeDefault, Ask},
		{"git status &>> /etc/out", ModeDefault, Ask},
		{"command -v git", ModeDefault, Ask},
		{"xargs", ModeDefault, Ask},
		{"git status | xargs echo", ModeDefault, Allow},
		{"git status | xargs touch", ModeDefault, Ask},
		{"ls | xargs -I{} cat {}", ModeDefault, Allow},
		{"env", ModeDefault, Ask},
		{"env git status", ModeDefault, Allow},
		{"env PATH=/tmp git status", ModeDefault, Deny}, // later code unseen: a deny rule cannot be checked
		{"sudo git status", ModeDefault, Ask},
		{"bash -c 'git status'", ModeDefault, Ask},
		{"git status > $OUT", ModeDefault, Ask},
		{"cd /tmp && git status > x", ModeDefault, Ask},
		{"cd /tmp && ls", ModeDefault, Ask},
		{"git status >> ~/.bashrc", ModeDefault, Ask},
		{"cat < /etc/passwd", ModeDefault, Ask},
		{"echo hi", ModeDefault, Ask},
		{"true", ModeDefault, Ask},
		{"", ModeDefault, Ask},
		{"ls >& out.txt", ModeAccept, Allow},
		{"ls >& /tmp/elsewhere", ModeDefault, Ask},
		{"git status > .dsh/settings.json", ModeDefault, Ask},
		{"git status > .git/hooks/pre-commit", ModeDefault, Ask},
		{"ls 'unterminated", ModeDefault, Deny},
		// Modes.
		{"touch p", ModeDefault, Ask},
		{"touch p", ModeAccept, Ask},
		{"touch p", ModePlan, Deny},
		{"touch p", ModeBypass, Allow},
		{"git status", ModePlan, Deny},
		{"touch ../outside", ModeBypass, Allow},
	}
	for _, tc := range cases {
		t.Run(string(tc.mode)+"/"+tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, tc.mode, allowGit, nil, denyRm)
			if tc.cmd == "cd sub && ls" {
				os.Mkdir(filepath.Join(p.ws.Cwd(), "sub"), 0o755)
			}
			d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd))
			if d.Verdict != tc.want {
				t.Errorf("got %v (%s; pending %q), want %v", d.Verdict, d.Reason, d.Pending, tc.want)
			}
		})
	}
	if len(cases) < 150 {
		t.Errorf("%d cases; the matcher's table keeps at least 150", len(cases))
	}
}

// TestPolicy_AskRulesAndKeys covers ask rules, the prompt's pending list
// and what "always" answers remember.
func TestPolicy_AskRulesAndKeys(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeDefault, []string{"bash(git:*)"}, []string{"bash(git push:*)"}, nil)
	bash := reg.Get("bash", scope)
	ctx := context.Background()
	if d := p.Decide(ctx, bash, bashArgs("git push")); d.Verdict != Ask || !strings.Contains(d.Reason, "git push") {
		t.Errorf("ask rule: %+v", d)
	}
	if d := p.Decide(ctx, bash, bashArgs("git log")); d.Verdict != Allow {
		t.Errorf("allow rule: %+v", d)
	}
	d := p.Decide(ctx, bash, bashArgs("go test ./... && touch p && go test -race"))
	if d.Verdict != Ask || strings.Join(d.Keys, ",") != "bash:go test,bash:touch" || len(d.Pending) != 3 {
		t.Fatalf("keys %q pending %q", d.Keys, d.Pending)
	}
	if got := strings.Join(d.Remembers, "; "); got != "go test, with any arguments; touch, with any arguments" {
		t.Errorf("remembers %q", got)
	}
	p.Remember(d.Keys, true)
	if d := p.Decide(ctx, bash, bashArgs("go test -v && touch q")); d.Verdict != Allow {
		t.Errorf("after always-allow: %+v", d)
	}
	if d := p.Decide(ctx, bash, bashArgs("go vet; touch q")); d.Verdict != Ask || len(d.Pending) != 1 || d.Pending[0] != "go vet" {
		t.Errorf("always-allow of go test covers go vet: %+v", d)
	}
	if d := p.Decide(ctx, bash, bashArgs("go test; eval x")); d.Verdict != Ask || d.Keys != nil || d.Remembers != nil {
		t.Errorf("an opaque script must not offer keys: %+v", d)
	}
	if d := p.Decide(ctx, bash, bashArgs("./go test")); d.Verdict != Ask {
		t.Errorf("an always-allow of go test covers a planted ./go: %+v", d)
	}
	if d := p.Decide(ctx, bash, bashArgs("/usr/local/go/bin/go test")); d.Verdict != Allow {
		t.Errorf("an always-allow of go test must cover the installed go: %+v", d)
	}
	d = p.Decide(ctx, bash, bashArgs("go --version"))
	if strings.Join(d.Keys, ",") != "bash:=go --version" {
		t.Fatalf("a multi-level tool with an option first: keys %q", d.Keys)
	}
	if got := strings.Join(d.Remembers, "; "); got != "exactly go --version" {
		t.Errorf("remembers %q", got)
	}
	p.Remember(d.Keys, true)
	if d := p.Decide(ctx, bash, bashArgs("go -C /elsewhere run .")); d.Verdict != Ask {
		t.Errorf("an always-allow of go --version covers go -C … run: %+v", d)
	}
	if d := p.Decide(ctx, bash, bashArgs("go --version")); d.Verdict != Allow {
		t.Errorf("the same command again: %+v", d)
	}
	p.Remember([]string{"bash:touch"}, false)
	if d := p.Decide(ctx, bash, bashArgs("ls; touch z")); d.Verdict != Deny {
		t.Errorf("always-reject: %+v", d)
	}
}

// arithSinks are places bash evaluates a word as arithmetic or as a
// variable name with a subscript (arith.go), for FuzzAnalyze.
var arithSinks = []string{"printf -v %s x", "test -v %s", "read %s <<< x", "[[ %s -eq 0 ]]", "declare -i n; n=%s",
	"unset %s", "let x=%s", "x=%s; (( x ))", "wait -p %s", "declare %s=1", "a=(1); echo ${a[%s]}"}

// FuzzAnalyze: the analysis never panics, a command the parser rejects is
// never allowed, and a word holding $(, ` or ${ that reaches arithmetic or
// a subscript (each of arithSinks) is refused under bash(rm:*) denied and
// asks under allow rules that cover the rest of the script.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"git status && touch p", "bash -c 'rm x'", "eval $x", "echo 'x", "a=$(b) c", "f(){ g; }; f", "find . -exec rm {} ;", "env -S 'a b'", "$'\\x72m'",
		"declare -A BASH_ALIASES=([x]=rm)", "declare -n r=$x; r[a]=b", "BASH_CMDS=([$k]=$v)", ": ${BASH_CMDS[ls]:=/bin/rm}", "read -a BASH_CMDS", "alias a=b; hash -p /bin/x y"} {
		f.Add(s)
	}
	for _, form := range arithForms {
		f.Add(form.cmd)
	}
	for _, form := range hiddenForms {
		f.Add(form.cmd)
	}
	for _, s := range []string{"exec 3<f; echo >/dev/fd/3", "echo > /proc/self/cwd/../x", "xargs --max-c 1 rm", "sed 's/a/b/w f'", "git -c core.pager=x log"} {
		f.Add(s)
	}
	for _, s := range secondRedTeamSeeds {
		f.Add(s)
	}
	p, reg, scope, _ := testPolicy(f, ModeDefault, []string{"bash(git status:*)", "bash(echo:*)", "bash"}, nil, nil)
	bash := reg.Get("bash", scope)
	denyRm, _, _, _ := testPolicy(f, ModeBypass, nil, nil, []string{"bash(rm:*)"})
	readOnly, _, _, _ := testPolicy(f, ModeDefault, []string{"bash(git status:*)", "bash(test:*)", "bash(printf:*)", "bash(read:*)", "bash(let:*)", "bash(unset:*)", "bash(wait:*)", "bash(echo:*)"}, nil, nil)
	f.Fuzz(func(t *testing.T, cmd string) {
		a := Analyze(cmd)
		if !utf8.ValidString(cmd) {
			return // never an argument: arguments are lossless JSON
		}
		ctx := context.Background()
		d := p.Decide(ctx, bash, bashArgs(cmd))
		if a.ParseError != nil && d.Verdict == Allow {
			t.Fatalf("unparsable %q was allowed", cmd)
		}
		if !strings.Contains(cmd, "$(") && !strings.Contains(cmd, "${") && !strings.Contains(cmd, "`") {
			return
		}
		word := shellQuote("a[" + cmd + "]")
		for _, sink := range arithSinks {
			script := fmt.Sprintf(sink, word)
			if d := denyRm.Decide(ctx, bash, bashArgs(script)); d.Verdict != Deny {
				t.Fatalf("%s with bash(rm:*) denied: got %v, want %v", script, d.Verdict, Deny)
			}
			if d := readOnly.Decide(ctx, bash, bashArgs("git status; "+script)); d.Verdict == Allow {
				t.Fatalf("git status; %s under allow rules: got %v, want %v", script, d.Verdict, Ask)
			}
		}
	})
}
