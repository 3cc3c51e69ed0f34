package permission

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestPolicy_RememberedProgramDirs: an "always allow" of git status
// covers git found on $PATH and git in the system's folders, and never a
// program of that name written with any other folder: ./git, bin/git,
// /tmp/x/git, /opt/git/bin/git are whatever someone put there.
func TestPolicy_RememberedProgramDirs(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeDefault, nil, nil, nil)
	bash := reg.Get("bash", scope)
	ctx := context.Background()
	d := p.Decide(ctx, bash, bashArgs("git status"))
	if d.Verdict != Ask || strings.Join(d.Keys, ",") != "bash:git status" {
		t.Fatalf("before the answer: %v keys %q", d.Verdict, d.Keys)
	}
	p.Remember(d.Keys, true)
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{"git status", Allow},
		{"/usr/bin/git status", Allow},
		{"/bin/git status", Allow},
		{"/usr/local/bin/git status", Allow},
		{"./git status", Ask},
		{"bin/git status", Ask},
		{"/tmp/x/git status", Ask},
		{"/opt/git/bin/git status", Ask},
		{"/usr/bin/x/git status", Ask}, // one folder below a system folder
		{"/usr/git status", Ask},       // the system folder's parent
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			if d := p.Decide(ctx, bash, bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("%s: %v (%s), want %v", tc.cmd, d.Verdict, d.Reason, tc.want)
			}
		})
	}
}

// TestPolicy_RedirectToDevices: of the device files only /dev/null is
// free to redirect to; any other (a disk, bash's /dev/tcp sockets, a
// name that merely starts like /dev/null) is judged as a file outside
// the workspace, so an allowed command asks.
func TestPolicy_RedirectToDevices(t *testing.T) {
	p, reg, scope, dir := testPolicy(t, ModeDefault, []string{"bash(git status:*)"}, nil, nil)
	bash := reg.Get("bash", scope)
	// On Windows /dev/sda is \dev\sda on the workspace's drive.
	abs := func(p string) string { return filepath.Join(filepath.VolumeName(dir), filepath.FromSlash(p)) }
	if runtime.GOOS != "windows" {
		abs = func(p string) string { return p }
	}
	for _, tc := range []struct {
		cmd    string
		want   Verdict
		reason string
	}{
		{"git status > /dev/null", Allow, ""},
		{"git status 2>/dev/null", Allow, ""},
		{"git status >> /dev/null 2>&1", Allow, ""},
		{"git status < /dev/null", Allow, ""},
		{"git status > /dev/tcp/example.com/80", Ask, "writes " + abs("/dev/tcp/example.com/80") + ", outside the workspace"},
		{"git status > /dev/udp/10.0.0.1/53", Ask, "writes " + abs("/dev/udp/10.0.0.1/53") + ", outside the workspace"},
		{"git status > /dev/sda", Ask, "writes " + abs("/dev/sda") + ", outside the workspace"},
		{"git status < /dev/sda", Ask, "reads " + abs("/dev/sda") + ", outside the workspace"},
		{"git status > /dev/nullx", Ask, "writes " + abs("/dev/nullx") + ", outside the workspace"},
		{"git status > /dev/null/x", Ask, "outside the workspace"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			d := p.Decide(context.Background(), bash, bashArgs(tc.cmd))
			if d.Verdict != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("%s: %v %q, want %v with %q", tc.cmd, d.Verdict, d.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestPolicy_PathlessCalls: a call that names no file (an MCP tool's)
// is covered only by a rule naming its tool or server, or an "always"
// answer; in the default mode it otherwise asks, offering its name as
// the key, whatever its effect but reading. Bypass runs it; plan mode
// refuses all but reading.
func TestPolicy_PathlessCalls(t *testing.T) {
	const name = "mcp__tracker__create_issue"
	for _, tc := range []struct {
		name   string
		mode   Mode
		allow  []string
		effect registry.Effect
		always bool // an "always allow" answer for the tool
		want   Verdict
	}{
		{name: "default, no rule", mode: ModeDefault, effect: registry.EffectUnknown, want: Ask},
		{name: "default, an execute tool", mode: ModeDefault, effect: registry.EffectExecute, want: Ask},
		{name: "default, an editing tool", mode: ModeDefault, effect: registry.EffectEdit, want: Ask},
		{name: "acceptEdits, an unknown tool", mode: ModeAccept, effect: registry.EffectUnknown, want: Ask},
		{name: "acceptEdits, an editing tool", mode: ModeAccept, effect: registry.EffectEdit, want: Allow},
		{name: "default, a reading tool", mode: ModeDefault, effect: registry.EffectRead, want: Allow},
		{name: "a rule for another tool", mode: ModeDefault, allow: []string{"mcp__tracker__list_issues"}, effect: registry.EffectUnknown, want: Ask},
		{name: "a rule for another server", mode: ModeDefault, allow: []string{"mcp__track"}, effect: registry.EffectUnknown, want: Ask},
		{name: "a read rule", mode: ModeDefault, allow: []string{"read(/**)"}, effect: registry.EffectUnknown, want: Ask},
		{name: "a rule for the tool", mode: ModeDefault, allow: []string{name}, effect: registry.EffectUnknown, want: Allow},
		{name: "a rule for its server", mode: ModeDefault, allow: []string{"mcp__tracker"}, effect: registry.EffectUnknown, want: Allow},
		{name: "an always answer", mode: ModeDefault, effect: registry.EffectUnknown, always: true, want: Allow},
		{name: "bypass", mode: ModeBypass, effect: registry.EffectUnknown, want: Allow},
		{name: "plan", mode: ModePlan, effect: registry.EffectUnknown, want: Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, _, _ := testPolicy(t, tc.mode, tc.allow, nil, nil)
			tool := &registry.Tool{Name: name, Effect: tc.effect}
			if tc.always {
				p.Remember([]string{name}, true)
			}
			d := p.Decide(context.Background(), tool, jargs("title", "x"))
			if d.Verdict != tc.want {
				t.Fatalf("%v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
			if d.Verdict == Ask && strings.Join(d.Keys, ",") != name {
				t.Errorf("keys %q, want the tool's name", d.Keys)
			}
		})
	}
}

// TestPolicy_ReadAskRuleCoversSearches: an ask rule read(secrets/**)
// asks for every tool that reads a path in that tree, grep and glob as
// well as read, and for none outside it (secrets-old is a sibling).
func TestPolicy_ReadAskRuleCoversSearches(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeDefault, nil, []string{"read(secrets/**)"}, nil)
	for _, tc := range []struct {
		name, tool string
		path       string
		want       Verdict
	}{
		{"read in the tree", "read", "secrets/key", Ask},
		{"grep of the tree's root", "grep", "secrets", Ask},
		{"grep in the tree", "grep", "secrets/sub", Ask},
		{"glob of the tree's root", "glob", "secrets", Ask},
		{"glob in the tree", "glob", "secrets/sub", Ask},
		{"read of a sibling", "read", "secrets-old/key", Allow},
		{"grep of a sibling", "grep", "secrets-old", Allow},
		{"glob of a sibling", "glob", "secrets-old", Allow},
		{"grep elsewhere", "grep", "src", Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := jargs("pattern", "x", "path", tc.path)
			if tc.tool == "read" {
				args = jargs("file_path", tc.path)
			}
			d := p.Decide(context.Background(), reg.Get(tc.tool, scope), args)
			if d.Verdict != tc.want {
				t.Fatalf("%v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
			if d.Verdict == Ask && d.Reason != "the permission rule read(secrets/**) asks" {
				t.Errorf("reason %q", d.Reason)
			}
		})
	}
}
