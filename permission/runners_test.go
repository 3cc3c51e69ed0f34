package permission

import (
	"context"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestPolicy_Runners: a program that runs a command given in its
// arguments (a tracer, a lock, a namespace, another user, a repeat, a
// project's environment) does not hide that command from deny and ask
// rules, in any mode, and is never covered by what it runs.
func TestPolicy_Runners(t *testing.T) {
	deny := []string{"bash(rm:*)", "bash(git push:*)"}
	allow := []string{"bash(ls:*)", "bash(uv run:*)", "bash(watch:*)", "bash(flock:*)"}
	cases := []verdictCase{
		// Each runs rm, which a deny rule refuses: in bypassPermissions too.
		{"flock", "flock /tmp/l rm x", ModeBypass, Deny},
		{"flock with options", "flock -w 5 -E 3 /tmp/l rm x", ModeBypass, Deny},
		{"flock -c after the file", "flock /tmp/l -c 'rm x'", ModeBypass, Deny},
		{"flock --command=", "flock /tmp/l --command='ls; rm x'", ModeBypass, Deny},
		{"flock runs a shell", "flock /tmp/l bash -c 'rm x'", ModeBypass, Deny},
		{"strace", "strace rm x", ModeBypass, Deny},
		{"strace -o FILE", "strace -f -o /dev/null rm x", ModeBypass, Deny},
		{"strace with an option it takes as a flag", "strace -Q 3 rm x", ModeBypass, Deny},
		{"a word taken as an option's value is judged too", "strace -e rm x", ModeBypass, Deny},
		{"ltrace", "ltrace -o out rm x", ModeBypass, Deny},
		{"valgrind", "valgrind --tool=memcheck rm x", ModeBypass, Deny},
		{"perf stat", "perf stat -e cycles rm x", ModeBypass, Deny},
		{"gdb --args", "gdb -q --args rm x", ModeBypass, Deny},
		{"watch", "watch -n1 rm x", ModeBypass, Deny},
		{"watch a string", "watch -n 1 'ls; rm x'", ModeBypass, Deny},
		{"script -c", "script -qc 'rm x' /dev/null", ModeBypass, Deny},
		{"script --command", "script --command 'rm x' out.log", ModeBypass, Deny},
		{"su -c", "su -c 'rm x'", ModeBypass, Deny},
		{"su user -c", "su root -c 'rm x'", ModeBypass, Deny},
		{"runuser -u", "runuser -u nobody -- rm x", ModeBypass, Deny},
		{"runuser -u, no --", "runuser -u nobody rm x", ModeBypass, Deny},
		{"runuser as su", "runuser root -c 'rm x'", ModeBypass, Deny},
		{"su with -c after the user", "su - root -c 'rm x'", ModeBypass, Deny},
		{"su passing -c to its shell", "su root -- -c 'rm x'", ModeBypass, Deny},
		{"script with -c after the file", "script out.log -c 'rm x'", ModeBypass, Deny},
		{"script -qc, a cluster", "script -qc 'rm x' /dev/null", ModeBypass, Deny},
		{"flock -w5, attached", "flock -w5 /tmp/l rm x", ModeBypass, Deny},
		{"sg", "sg wheel 'rm x'", ModeBypass, Deny},
		{"sg -c", "sg wheel -c 'rm x'", ModeBypass, Deny},
		{"unshare", "unshare -r rm x", ModeBypass, Deny},
		{"unshare --wd", "unshare --wd /tmp -r rm x", ModeBypass, Deny},
		{"nsenter", "nsenter -t 1 -m rm x", ModeBypass, Deny},
		{"chroot", "chroot / rm x", ModeBypass, Deny},
		{"chroot --userspec", "chroot --userspec 1:1 / rm x", ModeBypass, Deny},
		{"setpriv", "setpriv --reuid 1000 rm x", ModeBypass, Deny},
		{"prlimit", "prlimit --nofile=10 rm x", ModeBypass, Deny},
		{"setarch", "setarch x86_64 -R rm x", ModeBypass, Deny},
		{"linux64", "linux64 rm x", ModeBypass, Deny},
		{"parallel", "parallel rm ::: x y", ModeBypass, Deny},
		{"parallel -j", "parallel -j 2 'rm {}' ::: x", ModeBypass, Deny},
		{"fakeroot", "fakeroot -- rm x", ModeBypass, Deny},
		{"faketime", "faketime '2020-01-01' rm x", ModeBypass, Deny},
		{"unbuffer", "unbuffer rm x", ModeBypass, Deny},
		{"chronic", "chronic rm x", ModeBypass, Deny},
		{"caffeinate", "caffeinate -i rm x", ModeBypass, Deny},
		{"numactl", "numactl -N 0 rm x", ModeBypass, Deny},
		{"xvfb-run", "xvfb-run -a rm x", ModeBypass, Deny},
		{"systemd-run", "systemd-run --user -p Nice=5 rm x", ModeBypass, Deny},
		{"pkexec", "pkexec rm x", ModeBypass, Deny},
		{"run0", "run0 -u root rm x", ModeBypass, Deny},
		{"gosu", "gosu nobody rm x", ModeBypass, Deny},
		{"chpst", "chpst -u nobody rm x", ModeBypass, Deny},
		{"cpulimit", "cpulimit -l 50 rm x", ModeBypass, Deny},
		{"entr", "ls | entr -c rm x", ModeBypass, Deny},
		{"entr -s, a shell string", "ls | entr -s 'rm x'", ModeBypass, Deny},
		{"catchsegv by path", "/usr/bin/catchsegv rm x", ModeBypass, Deny},
		{"direnv exec", "direnv exec . rm x", ModeBypass, Deny},
		{"uv run", "uv run rm x", ModeBypass, Deny},
		{"uv run with options", "uv run --with requests rm x", ModeBypass, Deny},
		{"uv with a global option", "uv --directory sub run rm x", ModeBypass, Deny},
		{"poetry run", "poetry run rm x", ModeBypass, Deny},
		{"bundle exec", "bundle exec rm x", ModeBypass, Deny},
		{"pnpm exec", "pnpm exec rm x", ModeBypass, Deny},
		{"mise exec", "mise exec -- rm x", ModeBypass, Deny},
		{"runners nest", "nice strace -f flock /tmp/l timeout 5 rm x", ModeBypass, Deny},
		{"behind sudo", "sudo strace rm x", ModeBypass, Deny},
		{"behind env", "env A=1 unbuffer rm x", ModeBypass, Deny},
		{"a two-word rule", "strace -f git push origin", ModeBypass, Deny},
		{"in default mode too", "flock /tmp/l rm x", ModeDefault, Deny},
		// What cannot be seen is refused while a deny rule exists.
		{"chroot runs a shell reading its input", "chroot /srv", ModeBypass, Deny},
		{"su runs a shell reading its input", "su root", ModeBypass, Deny},
		{"a computed command", "flock /tmp/l -c \"$CMD\"", ModeBypass, Deny},
		{"a computed program", "strace $CMD", ModeBypass, Deny},
		// Not denied: rm is data, or the runner runs nothing.
		{"rm as data", "strace ls rmdir", ModeBypass, Allow},
		{"flock on a file named rm", "flock rm ls", ModeBypass, Deny}, // the lock file may be the command: a deny rule wins
		{"uv add", "uv add rm", ModeBypass, Allow},
		{"uv pip", "uv pip install rmx", ModeBypass, Allow},
		{"watch ls", "watch -n 5 ls", ModeBypass, Allow},
		{"perf without a command", "perf report", ModeBypass, Allow},
		{"script -c runs only its command", "script -qc 'ls' /dev/null", ModeBypass, Allow},
		{"su -c runs only its command", "su -c 'ls' root", ModeBypass, Allow},
		{"su's shell runs only its command", "su root -- -c 'ls'", ModeBypass, Allow},
		// Allowances: the runner's covers what it is given; what is not
		// covered asks.
		{"uv run is allowed", "uv run pytest -x", ModeDefault, Allow},
		{"watch is allowed", "watch -n 5 'ls -la'", ModeDefault, Allow},
		{"flock is allowed", "flock /tmp/l make", ModeDefault, Allow},
		{"strace is not", "strace ls", ModeDefault, Ask},
		{"a dangerous setting inside is refused", "watch 'PATH=/tmp ls'", ModeDefault, Deny},
		{"a redirect inside is judged", "watch 'ls > /etc/x'", ModeDefault, Ask},
	}
	p, reg, scope, _ := testPolicy(t, ModeDefault, allow, nil, deny)
	checkVerdicts(t, p, reg.Get("bash", scope), cases)
}

// verdictCase is a command and the verdict it must get in a mode.
type verdictCase struct {
	name, cmd string
	mode      Mode
	want      Verdict
}

// checkVerdicts decides each case's command with tool in its mode.
func checkVerdicts(t *testing.T, p *Policy, tool *registry.Tool, cases []verdictCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.mode = func() Mode { return tc.mode }
			d := p.Decide(context.Background(), tool, bashArgs(tc.cmd))
			if d.Verdict != tc.want {
				t.Errorf("%q: got %v (%s), want %v", tc.cmd, d.Verdict, d.Reason, tc.want)
			}
		})
	}
}

// TestPolicy_RunnersAsk: an ask rule sees what a runner runs, even when
// the runner is allowed.
func TestPolicy_RunnersAsk(t *testing.T) {
	allow := []string{"bash(strace:*)", "bash(uv run:*)", "bash(watch:*)", "bash(flock:*)"}
	p, reg, scope, _ := testPolicy(t, ModeDefault, allow, []string{"bash(git push:*)"}, nil)
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"strace", "strace git push", ModeDefault, Ask},
		{"uv run", "uv run git push", ModeDefault, Ask},
		{"watch", "watch 'git push'", ModeDefault, Ask},
		{"flock -c", "flock l -c 'git push'", ModeDefault, Ask},
		{"the runner alone is allowed", "strace git status", ModeDefault, Allow},
	})
}

// TestPolicy_Later: code a builtin keeps to run later, under another name
// or on an event, is judged by deny rules when it is defined.
func TestPolicy_Later(t *testing.T) {
	p, reg, scope, _ := testPolicy(t, ModeBypass, nil, nil, []string{"bash(rm:*)"})
	checkVerdicts(t, p, reg.Get("bash", scope), []verdictCase{
		{"an alias run by its name", "shopt -s expand_aliases\nalias r=rm\nr x", ModeBypass, Deny},
		{"an alias with arguments", "alias r='rm -rf'", ModeBypass, Deny},
		{"one of several aliases", "alias l=ls r='ls; rm x'", ModeBypass, Deny},
		{"a computed alias", "alias r=\"$X\"", ModeBypass, Deny},
		{"hash -p binds a name to rm", "hash -p /bin/rm ls; ls x", ModeBypass, Deny},
		{"hash -p, attached", "hash -p/bin/rm ls", ModeBypass, Deny},
		{"mapfile's callback", "mapfile -C 'rm x' -c 1 arr < f", ModeBypass, Deny},
		{"readarray's callback, attached", "readarray -C'rm x' arr < f", ModeBypass, Deny},
		{"a harmless alias", "alias ll='ls -la'", ModeBypass, Allow},
		{"hash of another program", "hash -p /bin/ls l", ModeBypass, Allow},
		{"mapfile without a callback", "mapfile -t arr < f", ModeBypass, Allow},
		{"hash without -p", "hash -r", ModeBypass, Allow},
		// A renamed runner runs what its use is given.
		{"an alias for a runner", "shopt -s expand_aliases\nalias s=strace\ns rm x", ModeBypass, Deny},
		{"an alias used in code the shell evaluates later", "shopt -s expand_aliases\nalias s=strace\nmapfile -C 's rm x' -c 1 a < f", ModeBypass, Deny},
		{"hash -p binds a name to a runner", "hash -p /usr/bin/strace ls; ls rm x", ModeBypass, Deny},
		{"a renamed runner given something else", "alias s=strace\ns ls", ModeBypass, Allow},
		// The same effects through the arrays behind alias and hash.
		{"an alias set through BASH_ALIASES", "shopt -s expand_aliases\nBASH_ALIASES[x]=rm\nx f", ModeBypass, Deny},
		{"a binding set through BASH_CMDS", "BASH_CMDS[ls]=/bin/rm\nls f", ModeBypass, Deny},
		{"BASH_CMDS assigned whole", "BASH_CMDS=([ls]=/bin/rm)\nls f", ModeBypass, Deny},
		{"BASH_ALIASES through declare", "declare -A BASH_ALIASES=([x]=rm)\nx f", ModeBypass, Deny},
		{"BASH_CMDS through read", "read 'BASH_CMDS[ls]' <<< /bin/rm; ls f", ModeBypass, Deny},
		{"BASH_CMDS through printf -v", "printf -v 'BASH_CMDS[ls]' /bin/rm; ls f", ModeBypass, Deny},
		{"BASH_CMDS appended to", "BASH_CMDS+=([ls]=/bin/rm)\nls f", ModeBypass, Deny},
		{"BASH_CMDS through a name reference", "declare -n r=BASH_CMDS; r[ls]=/bin/rm; ls f", ModeBypass, Deny},
		{"BASH_CMDS through local -n", "f() { local -n r=BASH_CMDS; r[ls]=/bin/rm; ls x; }; f", ModeBypass, Deny},
		{"BASH_CMDS through ${…:=…}", ": ${BASH_CMDS[ls]:=/bin/rm}; ls f", ModeBypass, Deny},
		{"BASH_CMDS through mapfile", "mapfile -t BASH_CMDS < f; ls f", ModeBypass, Deny},
		{"BASH_CMDS through getopts", "getopts a: BASH_CMDS; ls f", ModeBypass, Deny},
		{"a BASH_ALIASES entry for a runner", "shopt -s expand_aliases\nBASH_ALIASES[s]=strace\ns rm x", ModeBypass, Deny},
		{"a harmless BASH_ALIASES entry", "BASH_ALIASES[ll]='ls -la'", ModeBypass, Allow},
		{"read into an ordinary name", "read -r line < f; printf -v out '%s' x", ModeBypass, Allow},
		{"a name reference to an ordinary name", "declare -n r=other; r=1", ModeBypass, Allow},
	})
}
