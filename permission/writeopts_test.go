package permission

import (
	"context"
	"testing"
)

// TestPolicy_ProgramsWriteByOptions: programs that write by their own
// options or operands write edits of their files (issue 47, second red
// team): asked in default under an allow rule of the program, refused by
// an edit deny rule in bypassPermissions; metadata edits (touch, chmod,
// chown, chgrp) are refused by the deny rule and ask nothing of their own.
func TestPolicy_ProgramsWriteByOptions(t *testing.T) {
	allow := []string{"bash(shuf:*)", "bash(iconv:*)", "bash(git config:*)", "bash(openssl:*)", "bash(script:*)", "bash(strip:*)",
		"bash(objcopy:*)", "bash(shred:*)", "bash(vim:*)", "bash(ex:*)", "bash(perl:*)", "bash(touch:*)", "bash(chmod:*)", "bash(chown:*)", "bash(chgrp:*)"}
	for _, tc := range []struct {
		cmd    string
		writes bool
		meta   bool // a metadata edit: refused by the deny rule, asks nothing of its own
	}{
		{"shuf -o src.txt v", true, false},
		{"shuf --output=src.txt v", true, false},
		{"shuf -n 1 -osrc.txt v", true, false},
		{"iconv -f utf8 -t ascii -o src.txt v", true, false},
		{"iconv --output src.txt v", true, false},
		{"git config -f src.txt a.b c", true, false},
		{"git config --file=src.txt a.b c", true, false},
		{"git config --file src.txt a.b c", true, false},
		{"openssl enc -in v -out src.txt", true, false},
		{"openssl req -new -keyout src.txt -out x.csr", true, false},
		{"script -q src.txt", true, false},
		{"script -q -c true src.txt", true, false},
		{"strip -o src.txt v", true, false},
		{"strip src.txt", true, false},
		{"objcopy v src.txt", true, false},
		{"shred src.txt", true, false},
		{"shred -u src.txt", true, false},
		{"vim -es src.txt", true, false},
		{"ex -c wq src.txt", true, false},
		{"perl -pi -e 's/a/b/' src.txt", true, false},
		{"perl -i.bak -pe 's/a/b/' src.txt", true, false},
		{"perl -i -pe 's/a/b/' -- src.txt", true, false},
		{"touch src.txt", true, true},
		{"chmod +x src.txt", true, true},
		{"chmod --reference=v src.txt", true, true},
		{"chown 0 src.txt", true, true},
		{"chgrp 0 src.txt", true, true},
		{"shuf v", false, false},
		{"iconv -f utf8 -t ascii v", false, false},
		{"git config --get a.b", false, false},
		{"openssl version", false, false},
		{"perl -ne 'print' src.txt", false, false},
		{"chmod +x v", false, false},
		{"chmod -R +x d", true, true},
		{"touch d/*", true, true},
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
			want := Ask
			if tc.meta {
				want = Allow
			}
			t.Run("default/"+tc.cmd, func(t *testing.T) { check(t, ModeDefault, nil, want) })
		}
	}
}
