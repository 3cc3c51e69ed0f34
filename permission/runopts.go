package permission

// Programs that take a shell command, or a file of commands, in an
// option's value, beside the runners of runners.go (options from each
// program's manual on Debian 12, read 2026-12-05: GNU tar 1.34, strace
// 6.1, OpenSSH 9.2 ssh_config(5), zip 3.0, GNU make 4.3, GNU ed 1.19,
// GDB 13). A literal command is judged as code; a computed one, a file
// of commands and ed's input (whose !cmd runs a shell) are opaque.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// codeOption is one option whose value is code: name is matched as
// written (-I) or, for a long option, abbreviated (--use-compress-program
// as --use); prefix is text the value starts with for it to be a command
// (strace -o '|cmd'), and file marks a value naming a file of commands.
type codeOption struct {
	name   string
	prefix string
	file   bool
}

var codeOptions = map[string][]codeOption{
	"tar": {{name: "--to-command"}, {name: "--checkpoint-action", prefix: "exec="}, {name: "-I"},
		{name: "--use-compress-program"}, {name: "--info-script", file: true}, {name: "--new-volume-script", file: true}, {name: "-F", file: true}},
	"strace": {{name: "-o", prefix: "|"}, {name: "-o", prefix: "!"}, {name: "--output", prefix: "|"}, {name: "--output", prefix: "!"}},
	"ssh":    {{name: "-o", prefix: "proxycommand"}, {name: "-o", prefix: "localcommand"}, {name: "-o", prefix: "knownhostscommand"}, {name: "-F", file: true}},
	"scp":    {{name: "-o", prefix: "proxycommand"}, {name: "-o", prefix: "localcommand"}, {name: "-o", prefix: "knownhostscommand"}, {name: "-F", file: true}, {name: "-S", file: true}},
	"sftp":   {{name: "-o", prefix: "proxycommand"}, {name: "-o", prefix: "localcommand"}, {name: "-o", prefix: "knownhostscommand"}, {name: "-F", file: true}, {name: "-S", file: true}},
	"zip":    {{name: "-TT"}, {name: "--unzip-command"}},
	"make": {{name: "-f", file: true}, {name: "--file", file: true}, {name: "--makefile", file: true}, {name: "--eval", file: true},
		{name: "-E", file: true}},
	"gdb": {{name: "-ex", file: true}, {name: "-iex", file: true}, {name: "-x", file: true}, {name: "-ix", file: true},
		{name: "--eval-command", file: true}, {name: "--command", file: true}, {name: "-eval-command", file: true}, {name: "-command", file: true}},
}

// codeInOptions judges the code prog's options give it.
func (a *Analysis) codeInOptions(prog string, args []*syntax.Word, depth int) {
	switch prog {
	case "ed", "red":
		a.opaque("%s reads commands from its input, and !command runs a shell", prog)
		return
	}
	opts, ok := codeOptions[prog]
	if !ok {
		return
	}
	for i := 0; i < len(args); i++ {
		w, ok := lit(args[i])
		if !ok { // --to-command="$c": the option, its value computed
			r := rawLit(args[i])
			for _, o := range opts {
				if value, _, matched := optionValue(r, o.name, args, i); matched && value != nil && strings.HasPrefix(r, "-") {
					a.opaque("%s %s is given a computed value", prog, o.name)
				}
			}
			continue
		}
		if !strings.HasPrefix(w, "-") {
			continue
		}
		for _, o := range opts {
			value, next, matched := optionValue(w, o.name, args, i)
			if !matched {
				continue
			}
			v, ok := "", false
			if value != nil {
				v, ok = *value, true
			} else if next < len(args) {
				v, ok = lit(args[next])
			}
			code, isCode := strings.CutPrefix(strings.ToLower(v), o.prefix)
			if ok && o.prefix != "" {
				if !isCode {
					continue
				}
				code = v[len(o.prefix):]
				code = strings.TrimLeft(code, " =")
			} else {
				code = v
			}
			switch {
			case o.file:
				a.opaque("%s %s gives it commands, which cannot be checked", prog, o.name)
			case !ok:
				a.opaque("%s %s is given a computed command", prog, o.name)
			default:
				a.parse(code, depth+1)
			}
		}
	}
}

// optionValue reads args[i] (w) as option name with a value: attached
// (-ovalue, --name=value, a long one abbreviated) or the next word
// (index next).
func optionValue(w, name string, args []*syntax.Word, i int) (value *string, next int, matched bool) {
	if strings.HasPrefix(name, "--") {
		n, v, attached := strings.Cut(w, "=")
		if len(n) < 4 || !strings.HasPrefix(name, n) {
			return nil, 0, false
		}
		if attached {
			return &v, 0, true
		}
		return nil, i + 1, true
	}
	if w == name {
		return nil, i + 1, true
	}
	if len(name) == 2 && strings.HasPrefix(w, name) && !strings.HasPrefix(w, "--") {
		v := w[2:]
		return &v, 0, true
	}
	return nil, 0, false
}
