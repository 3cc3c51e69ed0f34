package permission

import "testing"

// TestPolicy_WordValues: a word's value is what bash gives it. $"…" is
// translated through a message catalog the script can plant, so it is
// computed; $'…' ends at its first NUL (issue 47, second red team).
func TestPolicy_WordValues(t *testing.T) {
	allow := []string{"bash(ls:*)", "bash(echo:*)", "bash(cat:*)", "bash(git status)"}
	p, reg, scope, _ := testPolicy(t, ModeDefault, allow, nil, nil)
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"a translated program", `LC_ALL=C.UTF-8 TEXTDOMAINDIR=l TEXTDOMAIN=x; $"ls" v`, ModeDefault, Ask},
		{"a translated program alone", `$"ls"`, ModeDefault, Ask},
		{"a translated part of a program", `l$"s" v`, ModeDefault, Ask},
		{"a translated argument under an exact rule", `git $"status"`, ModeDefault, Ask},
		{"a translated redirect target", `echo pwned > $"q"`, ModeAccept, Ask},
		{"a translated string in arithmetic", `echo $(( $"x" ))`, ModeDefault, Ask},
		{"a plain double-quoted program", `"ls" v`, ModeDefault, Allow},
		{"a plain argument under an exact rule", `git "status"`, ModeDefault, Allow},
		{"a NUL that leaves an allowed program", `$'ls\0zz' v`, ModeDefault, Allow},
		{"a NUL in a redirect target", `echo x > $'.envrc\0zz'`, ModeAccept, Ask},
		{"a NUL in a redirect target, cat", `cat v > $'.envrc\0'`, ModeAccept, Ask},
	})
	p, reg, scope, _ = testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"a translated program, bypass", `LC_ALL=C.UTF-8 TEXTDOMAINDIR=l TEXTDOMAIN=x; $"ls" v`, ModeBypass, Deny},
		{"NUL as \\0", `$'rm\0' v`, ModeBypass, Deny},
		{"NUL as \\x00", `$'rm\x00' v`, ModeBypass, Deny},
		{"NUL as \\c@", `$'rm\c@' v`, ModeBypass, Deny},
		{"NUL as \\000", `$'rm\000' v`, ModeBypass, Deny},
		{"NUL as \\u0000", `$'rm\u0000' v`, ModeBypass, Deny},
		{"NUL as \\U00000000", `$'rm\U00000000' v`, ModeBypass, Deny},
		{"text after the NUL", `$'rm\0zzz' v`, ModeBypass, Deny},
		{"octal letters and a NUL", `$'\162\155\0' v`, ModeBypass, Deny},
		{"the word goes on after the quote", `$'r\0zz'$'m\0' v`, ModeBypass, Deny},
	})
}
