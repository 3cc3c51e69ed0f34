package permission

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPolicy_ShellDescriptors: a redirect or write target through
// /dev/fd, /dev/std*, /proc/self or /proc/thread-self is placed as the
// command's shell opens it, not as the bridge would (issue 47 F9, F10):
// a descriptor the script opened on src.txt is src.txt, /proc/self/cwd
// is the command's directory, and what cannot be placed is named when it
// runs, asked in default and acceptEdits and refused by an edit deny rule.
func TestPolicy_ShellDescriptors(t *testing.T) {
	edit := map[Mode]Verdict{ModeDefault: Ask, ModeAccept: Allow}
	unknown := map[Mode]Verdict{ModeDefault: Ask, ModeAccept: Ask}
	plain := map[Mode]Verdict{ModeDefault: Allow, ModeAccept: Allow}
	for _, tc := range []struct {
		cmd    string
		want   map[Mode]Verdict
		denied bool // by edit(src.txt), in bypassPermissions
	}{
		{"git status 3<src.txt >/dev/fd/3", edit, true},
		{"echo hacked 3<src.txt >/dev/fd/3", edit, true},
		{"exec 3<src.txt; echo hacked >/dev/fd/3", edit, true},
		{"exec 3<src.txt; echo hacked >/dev//fd/./3", edit, true},
		{"exec 3<src.txt; echo hacked >/dev/fd/03", edit, true},
		{"exec 3<src.txt; echo hacked | tee /dev/fd/3", edit, true},
		{"git status > /proc/self/fd/3 3<src.txt", edit, true},
		{"git status > /proc/thread-self/fd/3 3<src.txt", edit, true},
		{"git status 0<src.txt >/dev/stdin", edit, true},
		{"git status <src.txt >/dev/fd/0", edit, true},
		{"exec 3<src.txt 4>&3; echo x > /dev/fd/4", edit, true},
		{"exec {fd}<src.txt; echo x >/dev/fd/10", edit, true},
		{"bash -c 'echo x >/dev/fd/3' 3<src.txt", edit, true},
		{"git status > /proc/self/cwd/src.txt", edit, true},
		{"git status > /proc/self/root@WS@/src.txt", edit, true},
		{"git status > /dev/fd/../../..@WS@/src.txt", unknown, true},
		{"git status > /dev/fd/3/../src.txt", unknown, true},
		{"git status > /proc/self/cwd/../x", unknown, true},
		{"git status > /dev/fd/7", unknown, true},
		{"git status > /proc/1/cwd/src.txt", unknown, true},
		{"git status > /proc/self/environ", unknown, true},
		{"git status > /dev/fd/../../..@WS@/.envrc", unknown, true},
		{"git status > /dev/stdout", plain, false},
		{"git status 2> /dev/stderr > /dev/fd/1", plain, false},
		{"git status 3<src.txt", plain, false},
	} {
		for _, mode := range []Mode{ModeDefault, ModeAccept} {
			t.Run(string(mode)+"/"+tc.cmd, func(t *testing.T) {
				p, reg, scope, dir := testPolicy(t, mode, []string{"bash(git status:*)", "bash(echo:*)", "bash(tee:*)", "bash(bash:*)"}, nil, nil)
				os.WriteFile(filepath.Join(dir, "src.txt"), []byte("orig\n"), 0o600)
				cmd := strings.ReplaceAll(tc.cmd, "@WS@", filepath.ToSlash(dir))
				want := tc.want[mode]
				if runtime.GOOS == "windows" && strings.Contains(tc.cmd, "/proc/self/root@WS@") {
					want = unknown[mode] // no /proc/self/root on Windows: /proc/self/rootC:/… is a name nobody knows
				}
				if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(cmd)); d.Verdict != want {
					t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, want)
				}
			})
		}
		t.Run("deny edit/"+tc.cmd, func(t *testing.T) {
			p, reg, scope, dir := testPolicy(t, ModeBypass, nil, nil, []string{"edit(src.txt)"})
			os.WriteFile(filepath.Join(dir, "src.txt"), []byte("orig\n"), 0o600)
			cmd := strings.ReplaceAll(tc.cmd, "@WS@", filepath.ToSlash(dir))
			want := Allow
			if tc.denied {
				want = Deny
			}
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(cmd)); d.Verdict != want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, want)
			}
		})
	}
}
