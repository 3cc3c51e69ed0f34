package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPolicy_WritesAreEdits: a command's write of a workspace file, by
// redirection or by its arguments, is judged as an edit of that file even
// when an allow rule covers the command: default asks, acceptEdits allows,
// plan refuses, bypassPermissions allows, and an edit(…) deny rule refuses
// in every mode.
func TestPolicy_WritesAreEdits(t *testing.T) {
	allow := []string{"bash(git status:*)", "bash(echo:*)", "bash(tee:*)", "bash(dd:*)", "bash(sed:*)", "bash(cp:*)",
		"bash(mv:*)", "bash(install:*)", "bash(ln:*)", "bash(truncate:*)", "bash(xargs:*)", "bash(find:*)", "bash(nohup:*)"}
	modes := []Mode{ModeDefault, ModeAccept, ModePlan, ModeBypass}
	edit := map[Mode]Verdict{ModeDefault: Ask, ModeAccept: Allow, ModePlan: Deny, ModeBypass: Allow}
	plain := map[Mode]Verdict{ModeDefault: Allow, ModeAccept: Allow, ModePlan: Deny, ModeBypass: Allow}
	named := map[Mode]Verdict{ModeDefault: Ask, ModeAccept: Ask, ModePlan: Deny, ModeBypass: Allow}
	for _, tc := range []struct {
		cmd  string
		want map[Mode]Verdict
		// denied reports that edit(src.txt) denies it
		denied bool
	}{
		{"git status > src.txt", edit, true},
		{"git status >> src.txt", edit, true},
		{"git status >| src.txt", edit, true},
		{"git status &> src.txt", edit, true},
		{"git status &>> src.txt", edit, true},
		{"git status >& src.txt", edit, true},
		{"git status 1<> src.txt", edit, true},
		{"git status 2> src.txt", edit, true},
		{"exec > src.txt; git status", edit, true},
		{"echo x | tee src.txt", edit, true},
		{"echo x | tee -a -- src.txt", edit, true},
		{"echo x | nohup tee src.txt", edit, true},
		{"dd if=/dev/zero of=src.txt count=1", edit, true},
		{"sed -i s/a/b/ src.txt", edit, true},
		{"sed -Ei s/a/b/ src.txt", edit, true},
		{"sed -i.bak -e s/a/b/ src.txt", edit, true},
		{"sed --in-place -e s/a/b/ src.txt", edit, true},
		{"sed s/a/b/ -i src.txt", edit, true},
		{"cp other.txt src.txt", edit, true},
		{"cp -f other.txt ./src.txt", edit, true},
		{"mv other.txt src.txt", edit, true},
		{"mv src.txt other.txt", edit, true}, // mv changes its source
		{"install -m 644 other.txt src.txt", edit, true},
		{"ln -sf other.txt src.txt", edit, true},
		{"truncate -s 0 src.txt", edit, true},
		{"cp -t sub other.txt", edit, false},
		{"cp other.txt sub", edit, false},
		// Not writes of workspace files.
		{"git status > /dev/null", plain, false},
		{"git status 2>&1 >&2", plain, false},
		{"echo x | tee /dev/null", plain, false},
		{"dd if=src.txt of=/dev/null", plain, false},
		{"sed s/a/b/ src.txt", plain, false},
		{"sed -n -e p src.txt", plain, false},
		{"git status < src.txt", plain, false},
		// Named when it runs: asked whatever the mode allows, and refused
		// by an edit deny rule, which cannot be checked.
		{"git status > $f", named, true},
		{"echo x | tee \"$f\"", named, true},
		{"ls | xargs sed -i s/a/b/", named, true},
		{"find . -name '*.txt' -exec sed -i s/a/b/ {} +", named, true},
		{"cp other.txt $d", named, true},
	} {
		for _, mode := range modes {
			t.Run(string(mode)+"/"+tc.cmd, func(t *testing.T) {
				p, reg, scope, dir := testPolicy(t, mode, allow, nil, nil)
				os.Mkdir(filepath.Join(dir, "sub"), 0o755)
				if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want[mode] {
					t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want[mode])
				}
			})
		}
		t.Run("deny edit/"+tc.cmd, func(t *testing.T) {
			p, reg, scope, dir := testPolicy(t, ModeBypass, allow, nil, []string{"edit(src.txt)"})
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			want := Allow
			if tc.denied {
				want = Deny
			}
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, want)
			}
		})
	}
}

// TestPolicy_WritesJudgedLikeEdits: a write by a command meets the bounds
// an edit does: outside the workspace and protected files ask even in
// acceptEdits, and an edit allow rule covers it in default.
func TestPolicy_WritesJudgedLikeEdits(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		mode      Mode
		allow     []string
		want      Verdict
	}{
		{"outside the workspace", "cp other.txt /tmp/x", ModeAccept, []string{"bash(cp:*)"}, Ask},
		{"a git hook", "cp other.txt .git/hooks/pre-commit", ModeAccept, []string{"bash(cp:*)"}, Ask},
		{"into the editor's folder", "cp tasks.json .vscode", ModeAccept, []string{"bash(cp:*)"}, Ask},
		{"tee to a start file", "echo x | tee .envrc", ModeAccept, []string{"bash(echo:*)", "bash(tee:*)"}, Ask},
		{"an edit rule covers it", "git status > src/out.txt", ModeDefault, []string{"bash(git status:*)", "edit(src/**)"}, Allow},
		{"an edit rule elsewhere does not", "git status > out.txt", ModeDefault, []string{"bash(git status:*)", "edit(src/**)"}, Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, reg, scope, dir := testPolicy(t, tc.mode, tc.allow, nil, nil)
			os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
			os.MkdirAll(filepath.Join(dir, ".vscode"), 0o755)
			os.MkdirAll(filepath.Join(dir, "src"), 0o755)
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
}

// TestPolicy_ExactRuleAndMoreArgs: an exact rule never covers a command
// xargs or find -exec … + gives more arguments to (issue 48).
func TestPolicy_ExactRuleAndMoreArgs(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{"git diff", Allow},
		{"echo --output=/tmp/x | xargs git diff", Ask},
		{"echo --output=/tmp/x | xargs -0 timeout 5 git diff", Ask},
		{"echo x | xargs", Allow}, // xargs alone runs echo, which a prefix rule covers
		{"rm {}", Allow},
		{"find . -name '*.o' -exec rm {} +", Ask},
		{"find . -name '*.o' -exec rm {} ';'", Ask}, // {} is whatever find found
		{"find . -exec git diff +", Ask},
		{"find . -execdir git diff ';'", Ask},
		{"find . -name '*.o'", Allow},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, ModeDefault, []string{"bash(git diff)", "bash(echo:*)", "bash(rm {})", "bash(find:*)"}, nil, nil)
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
}
