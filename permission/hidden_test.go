package permission

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hiddenForms run code the script does not show as a command: a value
// expanded by indirection or as a prompt, a name reference's target, a
// value given to one of bash's integer variables, trap's and the
// completion builtins' commands, a sourced file or input, and variables
// that make later commands run other code (issue 47). runs says whether
// bash 5 runs the rm (TestAnalyze_HiddenFormsRun).
var hiddenForms = []struct {
	cmd  string
	runs bool
}{
	// F1: ${!x}.
	{`x='a[$(rm v)]'; echo ${!x}`, true},
	{`x='a[$(rm v)]'; echo "${!x}"`, true},
	{`x='a[$(rm v)]'; echo ${!x:-d}`, true},
	{`y='$(rm v)'; x=y; echo ${!x@P}`, true},
	{`read x <<< 'a[$(rm v)]'; echo ${!x}`, true},
	{`x='a[$(rm v)]'; echo ${!x#y}`, true},
	// F2: ${x@P}.
	{`x='$(rm v)'; echo ${x@P}`, true},
	{`read x <<< '$(rm v)'; printf %s "${x@P}"`, true},
	{`x='$(rm v)'; echo "${x[0]@P}"`, true},
	// F3: a name reference declared without a target.
	{`declare -n r; r='a[$(rm v)]'; echo $r`, true},
	{`typeset -n r; r='a[$(rm v)]'; echo $r`, true},
	{`declare -n r; for r in 'a[$(rm v)]'; do echo $r; done`, true},
	{`declare -n r; read r <<< 'a[$(rm v)]'; echo $r`, true},
	{`declare -n r; printf -v r %s 'a[$(rm v)]'; echo $r`, true},
	{`f() { local -n r; r='a[$(rm v)]'; echo $r; }; f`, true},
	{`declare -n r=; r='a[$(rm v)]'; echo $r`, false},
	{`builtin declare -n r; r='a[$(rm v)]'; echo $r`, true},
	{`declare -n r=x; for r in 'a[$(rm v)]'; do echo $r; done`, true},
	// F4: bash's own integer variables.
	{`RANDOM='a[$(rm v)]'`, true},
	{`OPTIND='a[$(rm v)]'`, true},
	{`SRANDOM='a[$(rm v)]'`, true},
	{`export RANDOM='a[$(rm v)]'`, true},
	{`declare OPTIND='a[$(rm v)]'`, true},
	{`read RANDOM <<< 'a[$(rm v)]'`, true},
	{`printf -v OPTIND %s 'a[$(rm v)]'`, true},
	{`for OPTIND in 'a[$(rm v)]'; do :; done`, true},
	{`declare -n r=RANDOM; r='a[$(rm v)]'`, true},
	{`set -o history; HISTCMD='a[$(rm v)]'`, true},
	{`x='a[$(rm v)]'; RANDOM=$x`, true},
	// F5: trap.
	{`trap -- 'rm v' EXIT`, true},
	{`trap -- 'rm v' DEBUG; :`, true},
	{`trap 'rm v' EXIT`, true},
	// F6: compgen and complete.
	{`compgen -W '$(rm v)'`, true},
	{`compgen -W'$(rm v)'`, true},
	{`compgen -C 'rm v' x`, true},
	{`compgen -C'rm v' x`, true},
	{`compgen -F rm x`, false},
	{`complete -C 'rm v' x`, false},
	// F7: sourced code and variables that run code later.
	{`source /dev/stdin <<< 'rm v'`, true},
	{`. /dev/stdin <<< 'rm v'`, true},
	{"source /dev/stdin <<'E'\nrm v\nE", true},
	{`source /dev/stdin <<< "$(echo rm v)"`, true},
	{`echo 'rm v' > f; source ./f`, true},
	{`echo 'rm v' > f; . f`, true},
	{`echo 'rm v' > f; bash f`, true},
	{`echo 'rm v' > f; sh -- f`, true},
	{`echo 'rm v' > f; bash --rcfile f -ic :`, true},
	{`echo 'rm v' > f; BASH_ENV=./f bash -c :`, true},
	{`env 'BASH_FUNC_x%%=() { rm v; }' bash -c x`, true},
	{`PS4='$(rm v)'; set -x; :`, true},
	{`read PS4 <<< '$(rm v)'; set -x; :`, true},
	{`PROMPT_COMMAND='rm v' bash -ic : < /dev/null`, false},
}

// TestAnalyze_HiddenFormsRun: each form of hiddenForms does in bash what
// the table says.
func TestAnalyze_HiddenFormsRun(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range hiddenForms {
		t.Run(tc.cmd, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "v")
			if err := os.WriteFile(victim, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, "-c", tc.cmd)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir)
			cmd.Run()
			_, err := os.Stat(victim)
			if ran := os.IsNotExist(err); ran != tc.runs {
				t.Errorf("bash ran the hidden rm: got %v, want %v", ran, tc.runs)
			}
		})
	}
}

// TestPolicy_HiddenCode: every form of hiddenForms is refused with
// bash(rm:*) denied, even in bypassPermissions, and asks under allow
// rules that cover the builtins it hides in.
func TestPolicy_HiddenCode(t *testing.T) {
	readOnly := []string{"bash(git status:*)", "bash(test:*)", "bash(printf:*)", "bash(read:*)", "bash(echo:*)",
		"bash(declare:*)", "bash(typeset:*)", "bash(trap:*)", "bash(compgen:*)", "bash(complete:*)", "bash(source:*)",
		"bash(.:*)", "bash(set:*)", "bash(export:*)", "bash(env:*)", "bash(bash:*)", "bash(sh:*)"}
	for _, tc := range hiddenForms {
		t.Run("deny/"+tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != Deny {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, Deny)
			}
		})
		touch := "git status; " + strings.ReplaceAll(tc.cmd, "rm v", "touch p")
		t.Run("allow/"+touch, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, ModeDefault, readOnly, nil, nil)
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(touch)); d.Verdict != Ask {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, Ask)
			}
		})
	}
}

// TestPolicy_HiddenPlain: the same builtins and expansions hiding
// nothing are judged as before.
func TestPolicy_HiddenPlain(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{`a=(1 2); echo ${!a[@]} ${!a[*]}`, Allow},
		{`echo ${!BASH*}`, Allow},
		{`x=1; echo ${x@Q} ${x@U}`, Allow},
		{`declare -n r=x; x=1; echo $r`, Allow},
		{`declare -n r=x; for r in y z; do echo $r; done`, Allow},
		{`trap -p; trap -l; trap - EXIT`, Allow},
		{`trap -- 'echo bye' EXIT`, Allow},
		{`compgen -W 'a b c' -- a`, Allow},
		{`OPTIND=1; RANDOM=42`, Allow},
		{`source /dev/stdin <<< 'echo hi'`, Allow},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
}
