package permission

import (
	"strings"
	"testing"
	"time"
)

// secondRedTeamSeeds are FuzzAnalyze's seeds of the forms below.
var secondRedTeamSeeds = []string{
	`$"ls" v`, `echo > $"q"`, `$'rm\0zz' v`, `$'rm\c@'`, `echo $(( $"x" ))`,
	"alias b='echo \\'\nb #; rm v", "alias e='echo ' r=x\ne r \\\n#",
	"time -- rm v", "! time -p -- rm", "time --",
	"env -iS 'rm v'", "env --sp='-u X rm' v", "env -vu X rm v", "env -S", "env --=x rm",
	"xargs -I{} sh -c 'echo {}'", "xargs -iR {} R", `find . -exec sh -c 'echo {}' \;`, "xargs --rep",
	"perl -pi.bak -e x f", "script -q", "chmod --reference=a b", "git config -f", "vim +w f",
	"cat > w <<EOF2", "echo 'echo x > w' | bash",
	"tar --to-command=\"$c\"", "tar --checkpoint-action=exec=", "ssh -oProxyCommand", "strace -o", "gdb -ex",
}

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

// TestPolicy_AliasLexing: bash lexes an alias's text together with the
// rest of the line it is used on, so a text ending in a backslash or an
// open quote changes what that rest runs (issue 47, second red team).
func TestPolicy_AliasLexing(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"a backslash eats the comment", "shopt -s expand_aliases; alias b='echo \\'\nb #; rm v", ModeBypass, Deny},
		{"through BASH_ALIASES", "shopt -s expand_aliases; BASH_ALIASES[b]='echo \\'\nb #; rm v", ModeBypass, Deny},
		{"in bash -O expand_aliases -c", `bash -O expand_aliases -c "alias b='echo \\'` + "\n" + `b #; rm v"`, ModeBypass, Deny},
		{"an open quote closed on the line", "shopt -s expand_aliases; alias q=\"echo '\"\nq '; rm v; ''", ModeBypass, Deny},
		{"the comment of a continued line", "shopt -s expand_aliases; alias b='echo \\'\nb \\\n#; rm v", ModeBypass, Deny},
		{"a blank makes the next word an alias", "shopt -s expand_aliases; alias e='echo ' r='\\'\ne r #; rm v", ModeBypass, Deny},
		{"a plain alias use with a comment", "shopt -s expand_aliases; alias ll='ls -l'\nll x # rm v", ModeBypass, Allow},
		{"a blank before an ordinary word", "shopt -s expand_aliases; alias e='echo '\ne x", ModeBypass, Allow},
	})
}

// TestPolicy_TimeDashDash: bash's time keyword takes -- as the end of its
// options; the command after it is what runs (issue 47, second red team).
func TestPolicy_TimeDashDash(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, []string{"bash(ls:*)"}, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"time --", "time -- rm v", ModeBypass, Deny},
		{"time -p --", "time -p -- rm v", ModeBypass, Deny},
		{"negated", "! time -- rm v", ModeBypass, Deny},
		{"in a substitution", "x=$(time -- rm v)", ModeBypass, Deny},
		{"through env", "time -- env rm v", ModeBypass, Deny},
		{"in a pipeline", "time -- ls | time -- rm v", ModeBypass, Deny},
		{"an allowed program", "time -- ls v", ModeDefault, Allow},
	})
}

// TestPolicy_EnvOptions: env's options are read as getopt reads them,
// clusters and abbreviations too, and its split string is code (issue 47,
// second red team).
func TestPolicy_EnvOptions(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, []string{"bash(ls:*)"}, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"-iS", "env -iS 'rm v'", ModeBypass, Deny},
		{"-vS", "env -vS 'rm v'", ModeBypass, Deny},
		{"-S attached", "env -S'rm v'", ModeBypass, Deny},
		{"--split", "env --split 'rm v'", ModeBypass, Deny},
		{"--sp=", "env --sp='rm v'", ModeBypass, Deny},
		{"--split-string=", "env --split-string='rm v'", ModeBypass, Deny},
		{"-S before the operands", "env -S rm v", ModeBypass, Deny},
		{"-S with options in its string", "env -S '-u X rm' v", ModeBypass, Deny},
		{"-vu", "env -vu X rm v", ModeBypass, Deny},
		{"-iu", "env -iu X rm v", ModeBypass, Deny},
		{"-uX attached", "env -uX rm v", ModeBypass, Deny},
		{"--unset abbreviated", "env --uns X rm v", ModeBypass, Deny},
		{"--chdir", "env --chdir /tmp rm v", ModeBypass, Deny},
		{"-C in a cluster", "env -iC /tmp rm v", ModeBypass, Deny},
		{"--block-signal takes no next word", "env --block-signal rm v", ModeBypass, Deny},
		{"a lone -", "env - A=1 rm v", ModeBypass, Deny},
		{"--", "env -- rm v", ModeBypass, Deny},
		{"-S with a computed string", `env -S "$x"`, ModeBypass, Deny},
		{"a dangerous assignment", "env -i PATH=. ls", ModeBypass, Deny},
		{"an allowed program", "env -iu X A=1 ls v", ModeDefault, Allow},
		{"an allowed program in -S", "env -S 'ls v'", ModeDefault, Allow},
		{"a value that names rm", "env -u rm ls", ModeDefault, Allow},
		{"an unknown program in -S", "env -vS 'touch v'", ModeDefault, Ask},
	})
}

// TestPolicy_ReplacedInCode: the text xargs -I and find -exec replace
// with words read when they run makes code holding it, and a program
// naming it, computed (issue 47, second red team).
func TestPolicy_ReplacedInCode(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, []string{"bash(xargs:*)", "bash(find:*)", "bash(sh:*)", "bash(echo:*)"}, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"xargs -I{}", "xargs -I{} sh -c 'echo {}' <<< ';rm v'", ModeBypass, Deny},
		{"xargs -I %", "xargs -I % bash -c 'echo %'", ModeBypass, Deny},
		{"xargs -i", "xargs -i sh -c 'echo {}'", ModeBypass, Deny},
		{"xargs -iR", "xargs -iR sh -c 'echo R'", ModeBypass, Deny},
		{"xargs --replace", "xargs --replace sh -c 'echo {}'", ModeBypass, Deny},
		{"xargs --replace=R", "xargs --replace=R sh -c 'echo R'", ModeBypass, Deny},
		{"xargs --rep=R", "xargs --rep=R sh -c 'echo R'", ModeBypass, Deny},
		{"xargs -0I R in a cluster", "xargs -0I R sh -c 'echo R'", ModeBypass, Deny},
		{"xargs -I through a wrapper", "xargs -I{} env sh -c 'echo {}'", ModeBypass, Deny},
		{"xargs -I in eval", "xargs -I{} eval 'echo {}'", ModeBypass, Deny},
		{"xargs -I as the program", "xargs -I{} {} v", ModeBypass, Deny},
		{"xargs -I computed", `xargs -I "$r" sh -c 'echo x'`, ModeBypass, Deny},
		{"find -exec sh -c", `find . -name 'q*' -exec sh -c 'echo {}' \;`, ModeBypass, Deny},
		{"find -execdir bash -c", `find . -execdir bash -c 'echo "{}"' \;`, ModeBypass, Deny},
		{"find -exec with {} as the program", `find . -exec {} \;`, ModeBypass, Deny},
		{"find -exec sh -c {} +", `find . -exec sh -c {} +`, ModeBypass, Deny},
		{"xargs -I with plain code", "xargs -I{} sh -c 'echo x' {}", ModeDefault, Allow},
		{"find -exec with plain code", `find . -exec sh -c 'echo "$1"' sh {} \;`, ModeDefault, Allow},
		{"xargs -I{} echo {}", "xargs -I{} echo {}", ModeDefault, Allow},
		{"parallel's {} in code", "parallel sh -c 'echo {}' ::: ';rm v'", ModeBypass, Deny},
		{"parallel's joined command", "parallel \"sh -c 'echo {}'\" ::: ';rm v'", ModeBypass, Deny},
		{"parallel's {.} in code", "parallel bash -c 'echo {.}' ::: x", ModeBypass, Deny},
		{"parallel -I", "parallel -I% sh -c 'echo %' ::: ';rm v'", ModeBypass, Deny},
	})
}

// TestPolicy_OpaqueUnderWriteDenies: edit and write deny rules refuse a
// command with code the analysis cannot see, which may write the files
// they name, as bash deny rules do; a bare edit rule refuses every write
// of a command (issue 47, second red team).
func TestPolicy_OpaqueUnderWriteDenies(t *testing.T) {
	for _, deny := range []string{"edit", "edit(**)", "edit(w)", "write(w)"} {
		p, reg, scope, _ := testPolicy(t, ModeBypass, []string{"bash(cat:*)", "bash(echo:*)"}, nil, []string{deny})
		checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
			{deny + "/a computed eval", `x='echo x > w'; eval "$x"`, ModeBypass, Deny},
			{deny + "/a shell reading its input", "echo 'echo x > w' | bash", ModeBypass, Deny},
			{deny + "/an unclosed here-document", "cat > w <<EOF2", ModeBypass, Deny},
			{deny + "/a computed program", "$p w", ModeDefault, Deny},
			{deny + "/a redirect", "echo x > w", ModeBypass, Deny},
			{deny + "/reading only", "cat v", ModeBypass, Allow},
			{deny + "/reading only, default", "cat v", ModeDefault, Allow},
		})
	}
	p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"read(secret)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"a read rule leaves opaque code to the sandbox", `eval "$x"`, ModeBypass, Allow},
	})
}

// TestAnalyze_AliasUsesBounded: each use of an alias that changes how the
// rest of its line lexes is parsed with that rest, which holds the later
// uses; the analysis stays bounded however many a line holds.
func TestAnalyze_AliasUsesBounded(t *testing.T) {
	for _, src := range []string{
		"shopt -s expand_aliases; alias b='x \\'\n" + strings.Repeat("b ; ", 40),
		"shopt -s expand_aliases; alias a=x\n" + strings.Repeat("a;", 300),
	} {
		done := make(chan Analysis, 1)
		go func() { done <- Analyze(src) }()
		select {
		case a := <-done:
			if len(a.Opaque) == 0 {
				t.Errorf("%.40q…: got no opaque reason, want one (too many uses)", src)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%.40q…: still analysing after 20s", src)
		}
	}
}

// TestPolicy_ShellOptionsAfterC: -c only marks the first operand after
// every option as the command string (bash 5.2 and dash alike).
func TestPolicy_ShellOptionsAfterC(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, []string{"bash(bash:*)", "bash(sh:*)", "bash(ls:*)"}, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"-c --", "bash -c -- 'rm v'", ModeBypass, Deny},
		{"-c -x", "bash -c -x 'rm v'", ModeBypass, Deny},
		{"-c -o NAME", "bash -c -o errexit 'rm v'", ModeBypass, Deny},
		{"-c +x", "bash -c +x 'rm v'", ModeBypass, Deny},
		{"-ce --", "sh -ce -- 'rm v'", ModeBypass, Deny},
		{"-c -O NAME", "bash -c -O extglob 'rm v'", ModeBypass, Deny},
		{"-co NAME", "bash -co errexit 'rm v'", ModeBypass, Deny},
		{"-c with a computed string after options", `bash -c -x "$s"`, ModeBypass, Deny},
		{"-c and nothing after its options", "bash -c -x", ModeBypass, Deny},
		{"-c -x with a plain string", "bash -c -x 'ls v'", ModeDefault, Allow},
		{"-c with its $0 after", "sh -c 'ls \"$0\"' v", ModeDefault, Allow},
	})
}
