package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/fsprobe"
)

// TestPolicy_RedirectsResolved: a redirect is judged by the file it
// reaches, whatever its spelling: a symlinked folder leading out of the
// workspace, or to a protected folder inside it; a start file of the
// person's shell when the workspace is their home, and not its siblings.
func TestPolicy_RedirectsResolved(t *testing.T) {
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	p, reg, scope, dir := testPolicy(t, ModeDefault, []string{"bash(git status:*)"}, nil, nil)
	// The workspace is the home: its shell files are the person's.
	setHome(t, dir)
	// acceptEdits: a write inside the workspace is an edit it allows.
	p = New(p.ws, Settings{Allow: mustRules(t, "bash(git status:*)")}, func() Mode { return ModeAccept })
	bash := reg.Get("bash", scope)
	for _, d := range []string{".git/hooks", "sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	linked := fsprobe.Symlink(t, outside, filepath.Join(dir, "out"))
	linked = fsprobe.Symlink(t, filepath.Join(dir, ".git", "hooks"), filepath.Join(dir, "hooks")) && linked
	linked = fsprobe.Symlink(t, filepath.Join(outside, "made", "here"), filepath.Join(dir, "dangling")) && linked
	for _, tc := range []struct {
		name, cmd string
		want      Verdict
		reason    string // in the decision's reason ("" for none)
	}{
		{"a new file inside", "git status > sub/new/report.txt", Allow, ""},
		{"through a symlink out of the workspace", "git status > out/report.txt", Ask, "writes " + filepath.Join(outside, "report.txt") + ", outside the workspace"},
		{"reading through it", "git status < out/list", Ask, "reads " + filepath.Join(outside, "list") + ", outside the workspace"},
		{"through a symlink to the hooks", "git status > hooks/pre-commit", Ask, "git configuration that runs code"},
		{"through a dangling symlink", "git status > dangling", Ask, "writes " + filepath.Join(outside, "made", "here") + ", outside the workspace"},
		{"up from a symlink: the target's parent", "git status > out/../escaped", Ask, "writes " + filepath.Join(filepath.Dir(outside), "escaped") + ", outside the workspace"},
		{"up from a real folder", "git status > sub/../report.txt", Allow, ""},
		{"into a symlink's parent and out", "cd out/.. && git status", Ask, ""},
		{"a start file of the shell", "git status >> .bashrc", Ask, "a file your shell or tools run at start"},
		{"in a start folder", "git status > .ssh/config", Ask, "a file your shell or tools run at start"},
		{"a start file's sibling", "git status > .bashrc.old", Allow, ""},
		{"a start folder's sibling", "git status > .ssh2", Allow, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "symlink") || tc.name == "reading through it" || tc.name == "into a symlink's parent and out" {
				fsprobe.NeedLinks(t, linked)
			}
			d := p.Decide(context.Background(), bash, bashArgs(tc.cmd))
			if d.Verdict != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("%s: %v %q, want %v with %q", tc.cmd, d.Verdict, d.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestPolicy_AlwaysRejectAlone: an "always reject" answer holds when it is
// the only answer the session remembers.
func TestPolicy_AlwaysRejectAlone(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeDefault, nil, nil, nil)
	bash := reg.Get("bash", scope)
	p.Remember([]string{"bash:touch"}, false)
	if d := p.Decide(context.Background(), bash, bashArgs("ls && touch z")); d.Verdict != Deny || !strings.Contains(d.Reason, "always reject touch z") {
		t.Errorf("always-reject alone: %+v", d)
	}
}

func mustRules(t *testing.T, texts ...string) []Rule {
	t.Helper()
	var out []Rule
	for _, text := range texts {
		r, err := ParseRule(text, FromUser)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
