//go:build windows

package permission

// Red team, issue 52, on Windows (run under Wine by make test-wine): whole
// calls of the read and edit tools and of cmd, PowerShell and Git bash
// commands against a workspace whose secrets\** a read rule denies, whose
// .git\hooks is protected, and beside which lies a folder outside it. The
// session allows the plain reading and writing commands by rules
// (bash(type:*), bash(copy:*), bash(echo:*), powershell's Get-Content and
// Copy-Item) and edits in the workspace (edit(<ws>/**)), as a person who
// lets the agent work on its own would: the deny rule, the protected
// files and the workspace's bounds must still hold. Each failing case is
// a finding; its comment says what it shows.

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

var (
	redBash = &registry.Tool{Name: "bash", Effect: registry.EffectExecute, Subject: func(a jsonv.Value) string {
		v, _ := a.Get("command")
		return v.Str()
	}}
	redRead = &registry.Tool{Name: "read", Effect: registry.EffectRead, Accesses: func(a jsonv.Value) []registry.Access {
		v, _ := a.Get("path")
		return []registry.Access{{Path: v.Str()}}
	}}
	redEdit = &registry.Tool{Name: "edit", Effect: registry.EffectEdit, Accesses: func(a jsonv.Value) []registry.Access {
		v, _ := a.Get("path")
		return []registry.Access{{Path: v.Str(), Write: true}}
	}}
)

type redWin struct {
	ws, out, drive string
	p              *Policy
}

func newRedWin(t *testing.T, shell tools.ShellKind, mode Mode) *redWin {
	t.Helper()
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "secrets"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(ws, "secrets", "key"), filepath.Join(ws, "x.txt"), filepath.Join(out, "x")} {
		if err := os.WriteFile(f, []byte("s\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	rule := func(s string) Rule {
		r, err := ParseRule(s, FromUser)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	slash := filepath.ToSlash(ws)
	s := Settings{
		Deny: append([]Rule{rule("read(" + slash + "/secrets/**)")}, credentialsRules(UserConfigDir())...),
		Allow: []Rule{rule("bash(type:*)"), rule("bash(copy:*)"), rule("bash(echo:*)"), rule("bash(more:*)"), rule("bash(cat:*)"),
			rule("bash(powershell -NoProfile -Command:*)"), rule("bash(get-content:*)"), rule("bash(copy-item:*)"),
			rule("edit(" + slash + "/**)")},
		Unconfined: true,
		Shell:      shell,
	}
	return &redWin{ws: ws, out: out, drive: filepath.VolumeName(ws), p: New(w, s, func() Mode { return mode })}
}

func (r *redWin) decide(t *testing.T, tool *registry.Tool, key, val string) Decision {
	t.Helper()
	args, err := jsonv.ParseString(`{"` + key + `":` + strconv.Quote(val) + `}`)
	if err != nil {
		t.Fatal(err)
	}
	return r.p.Decide(context.Background(), tool, args)
}

// expand fills {ws}, {WS} (upper case), {out}, {drive} and {cred}.
func (r *redWin) expand(s string) string {
	return strings.NewReplacer("{ws}", r.ws, "{WS}", strings.ToUpper(r.ws), "{out}", r.out, "{drive}", r.drive,
		"{cred}", filepath.Join(UserConfigDir(), "credentials.json"), "{msys}", "/"+strings.ToLower(r.drive[:1])+filepath.ToSlash(r.ws[2:]),
		"{DRIVEUP}", strings.ToUpper(r.drive[:1])+filepath.ToSlash(r.ws[2:]), "{wsslash}", filepath.ToSlash(r.ws),
		"{wsnodrive}", strings.TrimPrefix(r.ws[len(r.drive):], `\`), "{drivenc}", strings.TrimSuffix(r.drive, ":"), "{outnodrive}", strings.TrimPrefix(r.out[len(r.drive):], `\`)).Replace(s)
}

type redCase struct {
	name, in string
	want     Verdict // Deny: must be denied; Ask: must not be allowed
}

func (r *redWin) run(t *testing.T, tool *registry.Tool, key string, cases []redCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := r.expand(tc.in)
			d := r.decide(t, tool, key, in)
			switch {
			case tc.want == Deny && d.Verdict != Deny:
				t.Errorf("%s %q: %v (%s), want deny", tool.Name, in, d.Verdict, d.Reason)
			case tc.want == Ask && d.Verdict == Allow:
				t.Errorf("%s %q: allowed, want ask or deny", tool.Name, in)
			}
		})
	}
}

func TestRedWin_CmdReadsDenied(t *testing.T) {
	r := newRedWin(t, tools.ShellCmd, ModeDefault)
	r.run(t, redBash, "command", []redCase{
		{"type", `type {ws}\secrets\key`, Deny},
		{"type relative", `type secrets\key`, Deny},
		{"type upper", `type {WS}\SECRETS\KEY`, Deny},
		{"type slashes", `type {ws}/secrets/key`, Deny},
		{"type verbatim", `type \\?\{ws}\secrets\key`, Deny},
		{"type device", `type \\.\{ws}\secrets\key`, Deny},
		{"type trailing dot", `type secrets.\key`, Deny},
		{"type data stream", `type secrets\key::$DATA`, Deny},
		{"type dotdot", `type sub\..\secrets\key`, Deny},
		{"type quoted", `type "{ws}\secrets\key"`, Deny},
		{"more redirect", `more < secrets\key`, Deny},
		{"copy", `copy secrets\key x2.txt`, Deny},
		{"credentials", `type "{cred}"`, Deny},
		// FINDING: a drive-relative path (C:secrets\key: the drive's
		// current folder, the workspace, then secrets\key) is joined to the
		// workspace as a name (ws\C:secrets\key) by Workspace.Abs.
		{"type drive-relative", `type {drive}secrets\key`, Deny},
		// FINDING: copy's "+" concatenates files: nul+secrets\key reads
		// the key, and the word as a whole names no denied path.
		{"copy concatenation", `copy /b nul+secrets\key x2.txt`, Deny},
		// FINDING: cmd takes , ; = as separators like a space: the program
		// is read as the whole word and its argument is never judged.
		{"type comma", `type,secrets\key`, Deny},
		{"type semicolon", `type;{ws}\secrets\key`, Deny},
		// FINDING (real NTFS only; Wine has no such stream): the folder's
		// index stream is the folder.
		{"type index allocation", `type secrets::$INDEX_ALLOCATION\key`, Deny},
		// FINDING (real Windows): the local administrative share.
		{"type admin share", `type \\localhost\{drivenc}$\{wsnodrive}\secrets\key`, Deny},
	})
}

func TestRedWin_PowerShellReadsDenied(t *testing.T) {
	r := newRedWin(t, tools.ShellCmd, ModeDefault)
	r.run(t, redBash, "command", []redCase{
		{"get-content", `powershell -NoProfile -Command Get-Content {ws}\secrets\key`, Deny},
		{"get-content -Path", `powershell -NoProfile -Command Get-Content -Path {ws}\secrets\key`, Deny},
		{"get-content quoted", `powershell -NoProfile -Command Get-Content '{ws}\secrets\key'`, Deny},
		{"gc upper", `powershell -NoProfile -Command Get-Content {WS}\SECRETS\KEY`, Deny},
		// FINDING: PowerShell binds -Path:value as -Path value; the
		// argument starts with "-" and has no "=", so it is skipped.
		{"get-content -Path:", `powershell -NoProfile -Command Get-Content -Path:{ws}\secrets\key`, Deny},
		{"get-content -LiteralPath:", `powershell -NoProfile -Command Get-Content -LiteralPath:secrets\key`, Deny},
		// FINDING: Get-Content's -Path takes wildcards: sec*\key is
		// secrets\key, and the word as written matches no rule.
		{"get-content wildcard", `powershell -NoProfile -Command Get-Content {ws}\sec*\key`, Deny},
		{"get-content bracket wildcard", `powershell -NoProfile -Command Get-Content {ws}\[s]ecrets\key`, Deny},
		// FINDING: PowerShell takes an en dash for a parameter's dash;
		// harmless here (the value is still judged), kept as a guard.
		{"get-content en dash", "powershell -NoProfile -Command Get-Content \u2013Path {ws}\\secrets\\key", Deny},
	})
}

func TestRedWin_GitBashReadsDenied(t *testing.T) {
	r := newRedWin(t, tools.ShellBash, ModeDefault)
	r.run(t, redBash, "command", []redCase{
		{"cat msys", `cat {msys}/secrets/key`, Deny},
		{"cat msys upper drive", `cat /` + `{DRIVEUP}` + `/secrets/key`, Deny},
		{"cat windows path", `cat '{ws}\secrets\key'`, Deny},
		{"cat slashes", `cat {wsslash}/secrets/key`, Deny},
		{"cat redirect msys", `cat < {msys}/Secrets/KEY`, Deny},
		{"cat dotdot msys", `cat {msys}/sub/../secrets/key`, Deny},
		// FINDING: C:secrets/key is drive-relative in Git's bash too.
		{"cat drive-relative", `cat {drive}secrets/key`, Deny},
	})
}

func TestRedWin_CmdWritesAsk(t *testing.T) {
	r := newRedWin(t, tools.ShellCmd, ModeAccept)
	r.run(t, redBash, "command", []redCase{
		{"echo to hooks", `echo x > .git\hooks\pre-commit`, Ask},
		{"echo to hooks case", `echo x > .GIT\Hooks\pre-commit`, Ask},
		{"echo to hooks trailing dot", `echo x > .git.\hooks\pre-commit`, Ask},
		{"echo to hooks verbatim", `echo x > \\?\{ws}\.git\hooks\pre-commit`, Ask},
		{"echo outside", `echo x > {out}\y`, Ask},
		{"echo outside verbatim", `echo x > \\?\{out}\y`, Ask},
		{"echo outside rooted", `echo x > \y`, Ask},
		{"echo outside dotdot", `echo x > ..\outside\y`, Ask},
		// FINDING: drive-relative ".." leaves the workspace: Z:..\outside
		// is the workspace's parent's outside folder to cmd, and
		// ws\Z:..\outside\y (inside, edit rule covers it) to the policy.
		{"echo outside drive-relative", `echo x > {drive}..\outside\y`, Ask},
		// FINDING: the same drive-relative spelling writes the hooks.
		{"echo to hooks drive-relative", `echo x > {drive}.git\hooks\pre-commit`, Ask},
		// FINDING: cmd's copy writes its last argument; only redirections
		// are judged as writes in cmd and PowerShell, so an allowed copy
		// writes a protected file or outside the workspace unasked.
		{"copy to hooks", `copy x.txt .git\hooks\pre-commit`, Ask},
		{"copy outside", `copy x.txt {out}\y`, Ask},
		{"copy-item to hooks", `powershell -NoProfile -Command Copy-Item x.txt .git\hooks\pre-commit`, Ask},
		// FINDING (real NTFS only): .git's index stream is .git.
		{"echo to hooks index allocation", `echo x > .git::$INDEX_ALLOCATION\hooks\pre-commit`, Ask},
	})
}

func TestRedWin_Tools(t *testing.T) {
	r := newRedWin(t, tools.ShellCmd, ModeAccept)
	r.run(t, redRead, "path", []redCase{
		{"read", `{ws}\secrets\key`, Deny},
		{"read upper", `{WS}\SECRETS\KEY`, Deny},
		{"read verbatim", `\\?\{ws}\secrets\key`, Deny},
		{"read relative trailing dot", `secrets.\key`, Deny},
		{"read data stream", `secrets\key::$DATA`, Deny},
		{"read credentials", `{cred}`, Deny},
		{"read outside", `{out}\x`, Ask},
		{"read outside rooted", `\` + `{outnodrive}\x`, Ask},
	})
	r.run(t, redEdit, "path", []redCase{
		{"edit hooks", `.git\hooks\pre-commit`, Ask},
		{"edit hooks case", `.GIT\HOOKS\pre-commit`, Ask},
		{"edit hooks verbatim", `\\?\{ws}\.git\hooks\pre-commit`, Ask},
		{"edit hooks trailing space", `.git \hooks\pre-commit`, Ask},
		{"edit outside", `{out}\y`, Ask},
		{"edit outside dotdot", `sub\..\..\outside\y`, Ask},
	})
}
