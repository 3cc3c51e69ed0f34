package permission

import "testing"

// TestPolicy_CodeInOptions: a shell command, or a file of commands, given
// in an option's value is judged as code or opaque (issue 47, second red
// team).
func TestPolicy_CodeInOptions(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, []string{"bash(tar:*)", "bash(make:*)", "bash(ssh:*)", "bash(gdb:*)", "bash(zip:*)", "bash(strace:*)"}, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"tar --to-command=", "tar -xf a.tar --to-command='rm v'", ModeBypass, Deny},
		{"tar --to-command, next word", "tar -xf a.tar --to-command 'rm v'", ModeBypass, Deny},
		{"tar --to-com abbreviated", "tar -xf a.tar --to-com='rm v'", ModeBypass, Deny},
		{"tar --checkpoint-action=exec=", "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='rm v' d", ModeBypass, Deny},
		{"tar -I", "tar -I 'rm v' -xf a.tar", ModeBypass, Deny},
		{"tar -I attached", "tar '-Irm v' -xf a.tar", ModeBypass, Deny},
		{"tar --use-compress-program=", "tar --use-compress-program='rm v' -xf a.tar", ModeBypass, Deny},
		{"tar --use abbreviated", "tar --use='rm v' -xf a.tar", ModeBypass, Deny},
		{"tar -F script", "tar -F ./s -cf a.tar d", ModeBypass, Deny},
		{"tar --to-command computed", `tar -xf a.tar --to-command="$c"`, ModeBypass, Deny},
		{"strace -o |", "strace -o '|rm v' true", ModeBypass, Deny},
		{"strace -o| attached", "strace '-o|rm v' true", ModeBypass, Deny},
		{"strace --output=!", "strace --output='!rm v' true", ModeBypass, Deny},
		{"ssh -o ProxyCommand=", "ssh -o ProxyCommand='rm v' h", ModeBypass, Deny},
		{"ssh -oProxyCommand attached, any case", "ssh -oproxycommand='rm v' h", ModeBypass, Deny},
		{"ssh -o 'ProxyCommand cmd'", "ssh -o 'ProxyCommand rm v' h", ModeBypass, Deny},
		{"ssh -o LocalCommand=", "ssh -o PermitLocalCommand=yes -o LocalCommand='rm v' h", ModeBypass, Deny},
		{"ssh -F config", "ssh -F ./cfg h", ModeBypass, Deny},
		{"scp -o ProxyCommand", "scp -o ProxyCommand='rm v' a h:b", ModeBypass, Deny},
		{"zip -TT", "zip -T -TT 'rm v' a.zip v", ModeBypass, Deny},
		{"zip --unzip-command=", "zip -T --unzip-command='rm v' a.zip v", ModeBypass, Deny},
		{"make -f", "make -f ./M", ModeBypass, Deny},
		{"make --eval", "make --eval='x:;rm v' x", ModeBypass, Deny},
		{"make -E", "make -E 'x:;rm v' x", ModeBypass, Deny},
		{"gdb -ex", "gdb -batch -ex 'shell rm v'", ModeBypass, Deny},
		{"gdb -x", "gdb -x cmds", ModeBypass, Deny},
		{"gdb --eval-command=", "gdb --eval-command='shell rm v'", ModeBypass, Deny},
		{"ed's input", "ed v <<< '!rm v'", ModeBypass, Deny},
		{"ssh with a plain option", "ssh -o BatchMode=yes h true", ModeDefault, Allow},
		{"tar extracting only", "tar -tf a.tar", ModeDefault, Allow},
		{"strace -o a file", "strace -o log true", ModeBypass, Allow},
		{"make a target", "make test", ModeDefault, Allow},
		{"gdb --args", "gdb --args true", ModeDefault, Allow},
	})
}
