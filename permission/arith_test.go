package permission

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// arithForms hide a command in text bash evaluates as arithmetic or a
// subscript (arith.go). runs says whether bash 5 runs it (checked by
// TestAnalyze_ArithFormsRun): the forms it does not run are refused all
// the same, as their spelling is code.
var arithForms = []struct {
	cmd  string
	runs bool
}{
	// The forms.
	{`[[ 'a[$(rm v)]' -eq 0 ]]`, true},
	{`printf -v 'a[$(rm v)]' x`, true},
	{`test -v 'a[$(rm v)]'`, true},
	{`declare -i n; n='a[$(rm v)]'`, true},
	{`read 'a[$(rm v)]' <<< x`, true},
	// Every builtin and compound command that evaluates a name's
	// subscript or arithmetic.
	{`[ -v 'a[$(rm v)]' ]`, true},
	{`[[ -v 'a[$(rm v)]' ]]`, true},
	{`[[ 1 -ne 'a[$(rm v)]' ]]`, true},
	{`[[ "a[\$(rm v)]" -lt 0 ]]`, false},
	{`[[ $'a[\x24(rm v)]' -ge 0 ]]`, true},
	{`[ 'a[$(rm v)]' -eq 0 ]`, false},
	{`test 'a[$(rm v)]' -lt 1`, false},
	{`printf -v 'a[` + "`rm v`" + `]' x`, true},
	{`printf -va'[$(rm v)]' x`, true},
	{`read -r 'a[$(rm v)]' <<< x`, true},
	{`read -d '' 'a[$(rm v)]' <<< x`, true},
	{`read -a 'a[$(rm v)]' <<< x`, false},
	{`mapfile 'a[$(rm v)]' <<< x`, false},
	{`readarray -t 'a[$(rm v)]' <<< x`, false},
	{`a=(1); unset 'a[$(rm v)]'`, true},
	{`a=(1 2); unset a['$(rm v)']`, true},
	{`let 'x=a[$(rm v)]'`, true},
	{`builtin let 'x=a[$(rm v)]'`, true},
	{`sleep 0 & wait -p 'a[$(rm v)]' $!`, true},
	{`set -- -o; getopts o 'a[$(rm v)]'`, false},
	{`declare 'a[$(rm v)]=1'`, true},
	{`typeset 'a[$(rm v)]'=1`, true},
	{`f() { local 'a[$(rm v)]'=1; }; f`, true},
	{`export 'a[$(rm v)]'=1`, false},
	{`readonly 'a[$(rm v)]'=1`, false},
	{`declare -i n='a[$(rm v)]'`, true},
	{`typeset -i n; n='a[$(rm v)]'`, true},
	{`f() { local -i n; n='a[$(rm v)]'; }; f`, true},
	{`builtin declare -i n; n='a[$(rm v)]'`, true},
	{`declare -i n; n+='a[$(rm v)]'`, true},
	{`declare -i n; n+=('a[$(rm v)]')`, true},
	{`declare -ai n=('a[$(rm v)]')`, true},
	{`n=x; declare -i n; n='a[$(rm v)]'`, true},
	{`declare -i n; : ${n:='a[$(rm v)]'}`, true},
	{`declare -n r='a[$(rm v)]'; r=1`, true},
	{`declare -i n; declare -n r=n; r='a[$(rm v)]'`, true},
	{`declare -a n=(['$(rm v)']=1)`, true},
	{`n=(['$(rm v)']=1)`, true},
	{`a[0]=1; echo ${a['$(rm v)']}`, true},
	{`(( 'a[$(rm v)]' ))`, true},
	{`echo $[ 'a[$(rm v)]' ]`, true},
	{`for ((i='a[$(rm v)]';0;)); do :; done`, true},
	// A variable whose value, given earlier in the same script, hides one.
	{`x='a[$(rm v)]'; (( x ))`, true},
	{`x='a[$(rm v)]'; echo $(( x + 1 ))`, true},
	{`x='a[$(rm v)]'; echo ${y[x]}`, true},
	{`x='a[$(rm v)]'; [[ x -eq 0 ]]`, true},
	{`x='a[$(rm v)]'; [[ $x -eq 0 ]]`, true},
	{`x='a[$(rm v)]'; let y=x`, true},
	{`x='a[$(rm v)]'; a=(1); a[x]=1`, true},
	{`x='a[$(rm v)]'; a=(1); unset 'a[x]'`, true},
	{`x='a[$(rm v)]'; y=x; (( y ))`, true},
	{`(( x )); x='a[$(rm v)]'`, false},
	{`x='a[$(rm v)]'; declare -n r=x; (( r ))`, true},
	{`x='a[` + "`rm v`" + `]'; (( x ))`, true},
	{`x="a[\$(rm v)]"; (( x ))`, true},
	{`x=a[\$\(rm\ v\)]; (( x ))`, true},
	// Values the script computes when it runs: arithmetic on them is
	// opaque, whatever they hold.
	{`echo 'a[$(rm v)]' > f; read n < f; (( n ))`, true},
	{`n=$(echo 'a[$(rm v)]'); (( n ))`, true},
	{`p='a['; q='$(rm v)]'; n=$p$q; (( n ))`, true},
	{`printf -v n 'a[%s(rm v)]' '$'; (( n ))`, true},
	{`f() { (( $1 )); }; f 'a[$(rm v)]'`, true},
	{`set -- 'a[$(rm v)]'; echo $(( $1 ))`, true},
	{`echo 'a[$(rm v)]' > f; (( $(cat f) ))`, true},
	{`echo 'a[$(rm v)]' > f; mapfile -t l < f; (( l ))`, true},
	{`echo 'a[$(rm v)]' > f; declare -i n; read n < f`, true},
	{`: > 'a[$(rm v)]'; for f in a*; do (( f )); done`, true},
	{`echo 'a[$(rm v)]' | { read; (( REPLY )); }`, true},
	{`n=$(printf 'a[\x24(rm v)]'); x=n; (( x ))`, true},
}

// TestAnalyze_ArithFormsRun: each form of arithForms does in bash what
// the table says, so that the table holds real bypasses.
func TestAnalyze_ArithFormsRun(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tc := range arithForms {
		t.Run(tc.cmd, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "v")
			if err := os.WriteFile(victim, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, "-c", tc.cmd)
			cmd.Dir = dir
			cmd.Run() // most forms fail after running the command
			_, err := os.Stat(victim)
			if ran := os.IsNotExist(err); ran != tc.runs {
				t.Errorf("bash ran the hidden rm: got %v, want %v", ran, tc.runs)
			}
		})
	}
}

// TestPolicy_ArithHidesCommands: a command hidden in arithmetic or a
// subscript is refused with bash(rm:*) denied, even in bypassPermissions,
// and asks under allow rules for the builtins that hide it and for the
// script's other commands.
func TestPolicy_ArithHidesCommands(t *testing.T) {
	readOnly := []string{"bash(git status:*)", "bash(test:*)", "bash(printf:*)", "bash(read:*)", "bash([:*)", "bash(echo:*)", "bash(let:*)", "bash(unset:*)", "bash(declare:*)", "bash(typeset:*)"}
	for _, tc := range arithForms {
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

// TestPolicy_ArithPlain: arithmetic and names that hide nothing are
// judged as before.
func TestPolicy_ArithPlain(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want Verdict
	}{
		{`for ((i=0; i<3; i++)); do echo $i; done`, Allow},
		{`echo $((1 + 2))`, Allow},
		{`x=3; echo $((x * 2)); (( x++ ))`, Allow},
		{`n=5; [[ $n -gt 3 ]] && echo big`, Allow},
		{`[[ $# -eq 0 ]]`, Allow},
		{`a=(1 2); echo ${a[1]} ${a[@]} ${#a[@]}`, Allow},
		{`a=(1 2); i=1; unset 'a[i]'; unset 'a[$i]'`, Allow},
		{`declare -i n=5; n=n+1; echo $n`, Allow},
		{`printf -v x '%s' y; test -v x; [[ -v x ]]`, Allow},
		{`read -r line < f; echo "$line"`, Allow},
		{`n=$(wc -l < f); [ "$n" -gt 3 ]`, Allow}, // test compares, it does not evaluate
		{`n=$(wc -l < f); [[ $n -gt 3 ]]`, Deny},  // [[ evaluates: opaque
		{`i=0; while (( i < 3 )); do i=$((i + 1)); done; [[ $i -eq 3 ]]`, Allow},
		{`a=(1 2); n=${#a[@]}; m=$#; (( n + m ))`, Allow},
		{`for i in 1 2 3; do echo $(( i * 2 )); done`, Allow},
		{`for f in *.go; do (( f )); done`, Deny}, // file names are data
		{`echo '$(rm v)'`, Allow},
		{`x='a[$(rm v)]'; echo "$x"`, Allow}, // data that nothing evaluates
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
}
