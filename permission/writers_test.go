package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPolicy_ProgramsWrite: programs that write a file their options,
// operands or programs name write an edit of it (issue 47 F11): asked
// in default under an allow rule of the program, refused by an edit deny
// rule in bypassPermissions; those whose files are named when they run
// ask in acceptEdits too.
func TestPolicy_ProgramsWrite(t *testing.T) {
	allow := []string{"bash(ls:*)", "bash(time:*)", "bash(git diff:*)", "bash(git log:*)", "bash(find:*)", "bash(sort:*)", "bash(uniq:*)",
		"bash(sed:*)", "bash(patch:*)", "bash(tar:*)", "bash(unzip:*)", "bash(rsync:*)", "bash(curl:*)", "bash(wget:*)", "bash(split:*)",
		"bash(csplit:*)", "bash(gzip:*)", "bash(gunzip:*)", "bash(ed:*)", "bash(ex:*)", "bash(awk:*)", "bash(echo:*)"}
	for _, tc := range []struct {
		cmd    string
		named  bool // the file is named when it runs: acceptEdits asks too
		writes bool // false: not a write at all (allowed in default)
	}{
		{"/usr/bin/time --output=src.txt ls", false, true},
		{"/usr/bin/time -osrc.txt ls", false, true},
		{"/usr/bin/time -o src.txt ls", false, true},
		{"/usr/bin/time --out src.txt ls", false, true},
		{"git diff --no-index --output=src.txt v v", false, true},
		{"git diff --no-index --output src.txt v v", false, true},
		{"git log --output=src.txt", false, true},
		{"find . -maxdepth 0 -fprint src.txt", false, true},
		{"find . -maxdepth 0 -fprintf src.txt x", false, true},
		{"find . -maxdepth 0 -fls src.txt", false, true},
		{"sort -o src.txt v", false, true},
		{"sort --output=src.txt v", false, true},
		{"sort -rosrc.txt v", false, true},
		{"uniq v src.txt", false, true},
		{"sed -n 'w src.txt' v", true, true},
		{"sed 's/x/y/w src.txt' v", true, true},
		{"sed -n '1W src.txt' v", true, true},
		{"sed -e p -e 'w src.txt' v", true, true},
		{"sed -f script v", true, true},
		{"patch -p1 < fix.diff", true, true},
		{"tar -xf a.tar", true, true},
		{"tar xf a.tar -C sub", true, true},
		{"unzip a.zip -d sub", true, true},
		{"rsync -a v src.txt", true, true},
		{"curl -o src.txt https://example.com", false, true},
		{"curl -sSLo src.txt https://example.com", false, true},
		{"curl -O https://example.com/src.txt", true, true},
		{"wget -O src.txt https://example.com", false, true},
		{"wget https://example.com/src.txt", true, true},
		{"split -l 1 v", true, true},
		{"csplit v 1", true, true},
		{"gzip src.txt", true, true},
		{"gunzip src.txt.gz", true, true},
		{"ed -s src.txt < script", true, true},
		{"ex -s src.txt < script", true, true},
		{`awk '{ print > "src.txt" }' v`, true, true},
		{`awk '{ print >> "src.txt" }' v`, true, true},
		// Reading only.
		{"sort v", false, false},
		{"sed -n 's/x/y/p' v", false, false},
		{"sed 's/w/x/g; /e/d' v", false, false},
		{"tar -tf a.tar", false, false},
		{"unzip -l a.zip", false, false},
		{"gzip -c v", false, false},
		{"curl -s https://example.com", false, false},
		{"wget -O - https://example.com", false, false},
		{"uniq v", false, false},
		{"git diff", false, false},
		{"awk '{ print $1 }' v", false, false},
	} {
		check := func(t *testing.T, mode Mode, deny []string, want Verdict) {
			t.Helper()
			p, reg, scope, dir := testPolicy(t, mode, allow, nil, deny)
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, want)
			}
		}
		t.Run("default/"+tc.cmd, func(t *testing.T) {
			want := Allow
			if tc.writes {
				want = Ask
			}
			check(t, ModeDefault, nil, want)
		})
		t.Run("acceptEdits/"+tc.cmd, func(t *testing.T) {
			want := Allow
			if tc.named {
				want = Ask
			}
			check(t, ModeAccept, nil, want)
		})
		t.Run("deny edit/"+tc.cmd, func(t *testing.T) {
			want := Allow
			if tc.writes {
				want = Deny
			}
			check(t, ModeBypass, []string{"edit(src.txt)"}, want)
		})
	}
}

// TestPolicy_InterpretersRun: sed's e, awk's system() and pipes, and git
// -c settings that may run a program are opaque (issue 47 F12).
func TestPolicy_InterpretersRun(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{"sed -n 'e rm v' v", Deny},
		{"sed 's/x/rm v/e' v", Deny},
		{"sed '1e rm v' v", Deny},
		{"sed -f script v", Deny},
		{`awk 'BEGIN{system("rm v")}'`, Deny},
		{`awk 'BEGIN{print "v" | "xargs rm"}'`, Deny},
		{`awk 'BEGIN{"rm v" | getline}'`, Deny},
		{`awk -f prog.awk v`, Deny},
		{`git -c alias.x='!rm v' x`, Deny},
		{`git -c core.pager='rm v' log`, Deny},
		{`git -c core.fsmonitor='rm v' status`, Deny},
		{`git --config-env=core.editor=E commit`, Deny},
		{`git -c user.name=x -c color.ui=always log`, Allow},
		{`sed -n 's/x/y/p' v`, Allow},
		{`awk '$1 || $2 { print $1 }' v`, Allow},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
}
