package permission

import (
	"context"
	"testing"
)

// TestPolicy_ProgramsWriteByOptions: programs that write by their own
// options or operands write edits of their files (issue 47, second red
// team): asked in default under an allow rule of the program, refused by
// an edit deny rule in bypassPermissions.
func TestPolicy_ProgramsWriteByOptions(t *testing.T) {
	allow := []string{"bash(shuf:*)", "bash(iconv:*)", "bash(git config:*)", "bash(openssl:*)", "bash(script:*)", "bash(strip:*)",
		"bash(objcopy:*)", "bash(shred:*)", "bash(vim:*)", "bash(ex:*)", "bash(perl:*)", "bash(touch:*)", "bash(chmod:*)", "bash(chown:*)", "bash(chgrp:*)"}
	for _, tc := range []struct {
		cmd    string
		writes bool
	}{
		{"shuf -o src.txt v", true},
		{"shuf --output=src.txt v", true},
		{"shuf -n 1 -osrc.txt v", true},
		{"iconv -f utf8 -t ascii -o src.txt v", true},
		{"iconv --output src.txt v", true},
		{"git config -f src.txt a.b c", true},
		{"git config --file=src.txt a.b c", true},
		{"git config --file src.txt a.b c", true},
		{"openssl enc -in v -out src.txt", true},
		{"openssl req -new -keyout src.txt -out x.csr", true},
		{"script -q src.txt", true},
		{"script -q -c true src.txt", true},
		{"strip -o src.txt v", true},
		{"strip src.txt", true},
		{"objcopy v src.txt", true},
		{"shred src.txt", true},
		{"shred -u src.txt", true},
		{"vim -es src.txt", true},
		{"ex -c wq src.txt", true},
		{"perl -pi -e 's/a/b/' src.txt", true},
		{"perl -i.bak -pe 's/a/b/' src.txt", true},
		{"perl -i -pe 's/a/b/' -- src.txt", true},
		{"touch src.txt", true},
		{"chmod +x src.txt", true},
		{"chmod --reference=v src.txt", true},
		{"chown 0 src.txt", true},
		{"chgrp 0 src.txt", true},
		{"shuf v", false},
		{"iconv -f utf8 -t ascii v", false},
		{"git config --get a.b", false},
		{"openssl version", false},
		{"perl -ne 'print' src.txt", false},
		{"chmod +x v", false},
	} {
		check := func(t *testing.T, mode Mode, deny []string, want Verdict) {
			t.Helper()
			p, reg, scope, _ := testPolicy(t, mode, allow, nil, deny)
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, want)
			}
		}
		t.Run("deny edit/"+tc.cmd, func(t *testing.T) {
			want := Allow
			if tc.writes {
				want = Deny
			}
			check(t, ModeBypass, []string{"edit(src.txt)"}, want)
		})
		if tc.writes {
			t.Run("default/"+tc.cmd, func(t *testing.T) { check(t, ModeDefault, nil, Ask) })
		}
	}
}
