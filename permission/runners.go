package permission

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runner describes a program whose arguments hold a command it runs: a
// tracer (strace), a lock (flock), a namespace or root (unshare, chroot),
// another user (su -c), a repeat (watch), a project's environment (uv
// run). Deny and ask rules see the command it runs, as they see the one
// behind nohup or sudo. Unlike nohup, a runner is never transparent: it
// needs an allowance of its own, and that allowance covers what it runs
// (bash(uv run:*) allows "uv run pytest"), as sudo's does not.
type runner struct {
	sub        string   // the subcommand that runs the command (uv run, bundle exec); "" when none
	value      string   // short options whose value is the next word (strace -o FILE)
	long       []string // long options whose value is the next word, unless written --opt=value
	operands   int      // words between the options and the command (flock's lock file, chroot's root)
	script     string   // short options whose value is a shell command (su -c, flock -c)
	scriptLong []string // their long forms (--command)
	joined     bool     // the command is its words joined into one shell command (watch, sg)
	files      bool     // its operands are files, never a command (script's typescript); options may follow them
	shellArgs  bool     // the operands after the first are its shell's arguments (su USER -c CMD)
	userOpt    bool     // -u USER makes the operands a command (runuser -u USER CMD)
	idle       bool     // given no command it runs a shell that reads its input (chroot, su)
	stop       string   // a word that ends the command (parallel's :::)
}

// runners lists the programs that run a command given in their
// arguments. Their option tables need not be complete: a word taken as an
// option's value, and, when an option not in the table comes just before
// the command, the command's second word, are also judged as where the
// command may start (Analysis.Maybe).
var runners = map[string]runner{
	"flock":            {value: "wE", long: []string{"--wait", "--timeout", "--conflict-exit-code"}, operands: 1, script: "c", scriptLong: []string{"--command"}},
	"chroot":           {long: []string{"--userspec", "--groups"}, operands: 1, idle: true},
	"unshare":          {value: "SGRwl", long: []string{"--setuid", "--setgid", "--root", "--wd", "--map-user", "--map-group", "--map-users", "--map-groups", "--propagation", "--load-interp"}, idle: true},
	"nsenter":          {value: "tSGN", long: []string{"--target", "--setuid", "--setgid", "--net-socket"}, idle: true},
	"setpriv":          {long: []string{"--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access", "--landlock-rule"}},
	"prlimit":          {value: "po", long: []string{"--pid", "--output"}},
	"setarch":          {operands: 1, idle: true},
	"linux32":          {idle: true},
	"linux64":          {idle: true},
	"runcon":           {value: "urtl", long: []string{"--user", "--role", "--type", "--range"}, operands: 1},
	"strace":           {value: "abeEIoOpPsSuUX", long: []string{"--output", "--user", "--env", "--attach", "--trace-path"}},
	"ltrace":           {value: "aAeFlnopsuwxD", long: []string{"--output", "--library"}},
	"valgrind":         {},
	"catchsegv":        {},
	"perf":             {value: "eoptCFcrGmxIDLM", long: []string{"--event", "--output", "--pid", "--tid", "--cpu", "--repeat", "--cgroup"}, operands: 1},
	"gdb":              {sub: "--args"},
	"watch":            {value: "nd", long: []string{"--interval"}, joined: true},
	"script":           {value: "EITOBmo", long: []string{"--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"}, script: "c", scriptLong: []string{"--command"}, files: true, idle: true},
	"su":               {value: "gGsw", long: []string{"--group", "--supp-group", "--shell", "--whitelist-environment"}, script: "c", scriptLong: []string{"--command", "--session-command"}, files: true, shellArgs: true, idle: true},
	"runuser":          {value: "gGswu", long: []string{"--group", "--supp-group", "--shell", "--whitelist-environment", "--user"}, script: "c", scriptLong: []string{"--command", "--session-command"}, files: true, shellArgs: true, userOpt: true, idle: true},
	"sg":               {operands: 1, script: "c", joined: true, idle: true},
	"pkexec":           {long: []string{"--user"}, idle: true},
	"run0":             {value: "ugDp", long: []string{"--user", "--group", "--chdir", "--property", "--setenv", "--nice", "--slice", "--unit"}, idle: true},
	"gosu":             {operands: 1},
	"su-exec":          {operands: 1},
	"setuidgid":        {operands: 1},
	"envdir":           {operands: 1},
	"chpst":            {value: "uUe/nlLmdofcrt"},
	"softlimit":        {value: "amdosflcprt"},
	"cpulimit":         {value: "lpe", long: []string{"--limit", "--pid", "--exe"}},
	"trickle":          {value: "udwtlsn"},
	"entr":             {joined: true},
	"parallel":         {value: "jJSaXdIEPnNL", long: []string{"--jobs", "--sshlogin", "--arg-file", "--delimiter", "--replace", "--eof", "--max-args", "--max-lines", "--joblog", "--results", "--tmpdir", "--workdir"}, joined: true, idle: true, stop: ":::"},
	"fakeroot":         {value: "lfsib", long: []string{"--lib", "--faked"}, idle: true},
	"faketime":         {value: "p", long: []string{"--date-prog"}, operands: 1},
	"unbuffer":         {},
	"chronic":          {},
	"nocache":          {},
	"caffeinate":       {value: "tw"},
	"numactl":          {value: "CNmpPiw"},
	"cgexec":           {value: "g"},
	"torsocks":         {value: "uapP"},
	"proxychains":      {value: "f"},
	"proxychains4":     {value: "f"},
	"xvfb-run":         {value: "nslfepw", long: []string{"--server-num", "--server-args", "--xauth-protocol", "--error-file", "--auth-file", "--wait"}},
	"dbus-run-session": {},
	"dbus-launch":      {},
	"systemd-run":      {value: "upEMH", long: []string{"--unit", "--property", "--setenv", "--machine", "--host", "--uid", "--gid", "--nice", "--working-directory", "--slice", "--description"}},
	"systemd-inhibit":  {long: []string{"--what", "--who", "--why", "--mode"}},
	"firejail":         {},
	"bwrap":            {},
	"ssh-agent":        {value: "aEPt"},
	"direnv":           {sub: "exec", operands: 1},
	"uv":               {sub: "run", long: []string{"--with", "--python", "--directory", "--project", "--package", "--extra", "--group", "--env-file", "--index"}},
	"poetry":           {sub: "run"},
	"pipenv":           {sub: "run"},
	"pdm":              {sub: "run"},
	"hatch":            {sub: "run"},
	"conda":            {sub: "run", value: "np", long: []string{"--name", "--prefix"}},
	"bundle":           {sub: "exec"},
	"pnpm":             {sub: "exec"},
	"rbenv":            {sub: "exec"},
	"pyenv":            {sub: "exec"},
	"asdf":             {sub: "exec"},
	"mise":             {sub: "exec"},
	"opam":             {sub: "exec"},
}

// runner sees what a runner runs. Everything it runs is judged by deny
// and ask rules (Analysis.Maybe); none of it needs an allowance beyond
// the runner's own, which covers, as an allow rule such as "uv run:*"
// says, whatever the runner is given. Code it runs that cannot be seen,
// and dangerous settings in it, count as the script's own.
func (a *Analysis) runner(src string, s *Simple, r runner, args []*syntax.Word, depth int) {
	in := a.nested()
	in.runs(src, s, r, args, depth)
	a.absorb(&in)
}

// runs analyses a runner's command: a shell command given as a string is
// parsed, one given as words is judged as a simple command.
func (a *Analysis) runs(src string, s *Simple, r runner, args []*syntax.Word, depth int) {
	i := 0
	ranScript := false
	// option reads the option args[i-1] (w), and its value from args[i]
	// when it takes the next word; it reports whether w was a flag whose
	// value, if it takes one, would be the next word.
	option := func(w string) (unknown bool) {
		kind, value, attached := r.option(w)
		if kind == flag {
			return !attached
		}
		if !attached {
			if i >= len(args) {
				return false
			}
			if kind == valued {
				a.maybe(src, args, i) // a value, or, if the option takes none, the command
				i++
				return false
			}
			v, ok := lit(args[i])
			if !ok {
				a.opaque("%s is given a computed command", s.Program)
				i++
				return false
			}
			value, i = v, i+1
		}
		if kind == scripted {
			ranScript = true
			a.parse(value, depth+1)
		}
		return false
	}
	options := func() (unknown bool) {
		for i < len(args) {
			w, ok := lit(args[i])
			if !ok || !strings.HasPrefix(w, "-") || w == "-" || (r.sub != "" && w == r.sub) {
				return unknown
			}
			i++
			if w == "--" {
				return false
			}
			unknown = option(w)
		}
		return unknown
	}
	if r.files {
		// getopt permutes: options may come after the operands, until --.
		var operands []*syntax.Word
		userGiven := false
		for i < len(args) {
			w, ok := lit(args[i])
			i++
			switch {
			case ok && w == "--":
				operands = append(operands, args[i:]...)
				i = len(args)
			case ok && w == "-" && r.shellArgs: // su -: a login shell
			case ok && strings.HasPrefix(w, "-") && w != "-":
				userGiven = userGiven || (r.userOpt && (w == "-u" || w == "--user" || strings.HasPrefix(w, "--user=")))
				option(w)
			default:
				operands = append(operands, args[i-1])
			}
		}
		if userGiven && len(operands) > 0 {
			// runuser -u USER CMD…: the operands are the command.
			a.call(src, operands, depth)
			return
		}
		if r.shellArgs && len(operands) > 1 {
			// su USER ARGS…: the words after the user are its shell's.
			a.shell(&Simple{Program: s.Program}, operands[1:], depth)
			return
		}
		if !ranScript && r.idle {
			a.opaque("%s runs a shell that reads its input", s.Program)
		}
		return
	}
	unknown := options()
	if r.sub != "" {
		if i >= len(args) {
			return
		}
		if w, ok := lit(args[i]); !ok || w != r.sub {
			return // not the subcommand that runs one
		}
		i++
		unknown = options()
	}
	for range r.operands {
		if i < len(args) {
			a.maybe(src, args, i)
			i++
		}
	}
	if r.operands > 0 && options() {
		unknown = true
	}
	switch {
	case i >= len(args):
		if !ranScript && r.idle {
			a.opaque("%s runs a shell that reads its input", s.Program)
		}
		return
	case r.joined:
		end := len(args)
		for j := i; j < len(args); j++ {
			if w, _ := lit(args[j]); r.stop != "" && strings.HasPrefix(w, r.stop) {
				end = j
				break
			}
		}
		str, ok := joinLit(args[i:end])
		if !ok {
			a.opaque("%s is given a computed command", s.Program)
			return
		}
		a.parse(str, depth+1)
		return
	}
	if unknown {
		a.maybe(src, args, i+1) // the word after an option that may take a value
	}
	a.call(src, args[i:], depth)
}

// judged is every command deny and ask rules see: those that run as
// written, then those a runner may run.
func (a *Analysis) judged() []Simple {
	return append(a.Commands[:len(a.Commands):len(a.Commands)], a.Maybe...)
}

// The kinds of a runner's options.
const (
	flag     = iota // takes no value (or has it attached: --opt=value)
	valued          // takes a value
	scripted        // takes a shell command as its value
)

// option tells what kind of option w is, and its value when attached
// (-w5, -cCMD, --command=CMD). A short cluster (-qc CMD) is read as getopt
// reads it: letters are flags until one takes a value, which is the rest
// of the word or else the next word. A flag reports attached when it is
// known to take no next word (written --opt=value).
func (r runner) option(w string) (kind int, value string, attached bool) {
	if long, ok := strings.CutPrefix(w, "--"); ok {
		name, v, eq := strings.Cut(long, "=")
		name = "--" + name
		switch {
		case slices.Contains(r.scriptLong, name):
			return scripted, v, eq
		case eq:
			return flag, "", true
		case slices.Contains(r.long, name):
			return valued, "", false
		}
		return flag, "", false
	}
	for j := 1; j < len(w); j++ {
		k := flag
		switch {
		case strings.IndexByte(r.script, w[j]) >= 0:
			k = scripted
		case strings.IndexByte(r.value, w[j]) >= 0:
			k = valued
		default:
			continue
		}
		if j+1 < len(w) {
			return k, w[j+1:], true
		}
		return k, "", false
	}
	return flag, "", false
}

// maybe records args[i:] as a command a runner may run, when args[i] is a
// literal word that could name a program: deny and ask rules see it,
// nothing needs it allowed.
func (a *Analysis) maybe(src string, args []*syntax.Word, i int) {
	if i >= len(args) {
		return
	}
	if s, prog, ok := newSimple(src, args[i:]); ok && !strings.HasPrefix(prog, "-") {
		a.Maybe = append(a.Maybe, s)
	}
}
