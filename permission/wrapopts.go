package permission

// The options of the wrappers unwrap sees through, from each program's
// --help on Debian 12 (coreutils 9.1, findutils 4.9, util-linux 2.38,
// GNU time 1.9; read 2026-12-05) and sudo(8) 1.9 and doas(1). Long
// options may be abbreviated to any unambiguous prefix (getopt_long). An
// option not in a wrapper's table, or a prefix that names options both
// with and without a value, leaves it uncertain whether the next word is
// the option's value or the command: both readings are judged.

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrapperOptions are one wrapper's options.
type wrapperOptions struct {
	value    string   // short options whose value is the rest of the word or the next word
	optional string   // short options whose value, if any, is the rest of the word (xargs -l5)
	flags    string   // short options that take no value
	long     []string // long options whose value is the next word, unless attached with =
	longFlag []string // long options that take none (or only an attached one)
}

var wrapperOpts = map[string]wrapperOptions{
	"command": {flags: "pvV"},
	"builtin": {},
	"exec":    {value: "a", flags: "cl"},
	"nohup":   {longFlag: []string{"--help", "--version"}},
	"time": {value: "fo", flags: "apqvhV", long: []string{"--format", "--output"},
		longFlag: []string{"--append", "--portability", "--quiet", "--verbose", "--help", "--version"}},
	"nice": {value: "n", flags: "0123456789", long: []string{"--adjustment"}, longFlag: []string{"--help", "--version"}},
	"timeout": {value: "sk", flags: "v", long: []string{"--kill-after", "--signal"},
		longFlag: []string{"--preserve-status", "--foreground", "--verbose", "--help", "--version"}},
	"stdbuf": {value: "ioe", long: []string{"--input", "--output", "--error"}, longFlag: []string{"--help", "--version"}},
	"setsid": {flags: "cfwhV", longFlag: []string{"--ctty", "--fork", "--wait", "--help", "--version"}},
	"ionice": {value: "cnpPu", flags: "thV", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"},
		longFlag: []string{"--ignore", "--help", "--version"}},
	"chrt": {value: "TPD", flags: "bdfioRamvphV", long: []string{"--sched-runtime", "--sched-period", "--sched-deadline"},
		longFlag: []string{"--batch", "--deadline", "--fifo", "--idle", "--other", "--rr", "--reset-on-fork", "--all-tasks", "--max", "--pid", "--verbose", "--help", "--version"}},
	"taskset": {flags: "apchV", longFlag: []string{"--all-tasks", "--pid", "--cpu-list", "--help", "--version"}},
	"xargs": {value: "adEILnPs", optional: "eil", flags: "0oprtxhV",
		long: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
		longFlag: []string{"--null", "--eof", "--replace", "--max-lines", "--open-tty", "--interactive", "--no-run-if-empty",
			"--show-limits", "--verbose", "--exit", "--help", "--version"}},
	"sudo": {value: "CDghpRrtTUu", flags: "ABbEeHiKkLlnPSsVv",
		long: []string{"--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"},
		longFlag: []string{"--askpass", "--background", "--bell", "--edit", "--help", "--set-home", "--login", "--remove-timestamp", "--reset-timestamp",
			"--list", "--non-interactive", "--preserve-env", "--preserve-groups", "--shell", "--stdin", "--validate", "--version"}},
	"doas": {value: "uC", flags: "Lns"},
}

// skipOptions returns the index of the first word after a wrapper's
// options, and the other indexes where its command may start when an
// option's taking a value is uncertain.
func skipOptions(prog string, args []*syntax.Word) (int, []int) {
	o := wrapperOpts[prog]
	var alts []int
	for i := 0; i < len(args); i++ {
		w, ok := lit(args[i])
		switch {
		case !ok, !strings.HasPrefix(w, "-"), w == "-":
			return i, alts
		case w == "--":
			return i + 1, alts
		}
		var takes, sure bool
		if long, ok := strings.CutPrefix(w, "--"); ok {
			if strings.Contains(long, "=") {
				continue
			}
			takes, sure = o.longTakes(w)
		} else {
			takes, sure = o.shortTakes(w)
		}
		switch {
		case !sure: // read as a flag; the other reading is judged too
			alts = append(alts, i+2)
		case takes:
			i++
		}
	}
	return len(args), alts
}

// longTakes reports whether a long option (or an abbreviation of one)
// takes the next word, and whether that is certain.
func (o wrapperOptions) longTakes(w string) (takes, sure bool) {
	if slices.Contains(o.long, w) {
		return true, true
	}
	if slices.Contains(o.longFlag, w) {
		return false, true
	}
	valued, flag := 0, 0
	for _, l := range o.long {
		if strings.HasPrefix(l, w) {
			valued++
		}
	}
	for _, l := range o.longFlag {
		if strings.HasPrefix(l, w) {
			flag++
		}
	}
	switch {
	case valued > 0 && flag == 0:
		return true, true
	case flag > 0 && valued == 0:
		return false, true
	}
	return false, false
}

// shortTakes reads a cluster of short options as getopt does.
func (o wrapperOptions) shortTakes(w string) (takes, sure bool) {
	for j := 1; j < len(w); j++ {
		c := w[j]
		switch {
		case strings.IndexByte(o.value, c) >= 0:
			return j+1 == len(w), true
		case strings.IndexByte(o.optional, c) >= 0:
			return false, true
		case strings.IndexByte(o.flags, c) < 0:
			return false, false
		}
	}
	return false, true
}

// envLong are env's long options (env --help, coreutils 9.1, read
// 2026-12-05): 1 takes a value, attached with = or the next word; 2 takes
// one only attached; 0 none. Its short options are -i, -0, -v and -u, -C,
// -S with a value; its option string starts with +, so options end at
// its first operand.
var envLong = map[string]int{
	"ignore-environment": 0, "null": 0, "unset": 1, "chdir": 1, "split-string": 1,
	"block-signal": 2, "default-signal": 2, "ignore-signal": 2, "list-signal-handling": 0,
	"debug": 0, "help": 0, "version": 0,
}

// envLongName resolves an env long option, abbreviated to any
// unambiguous prefix as getopt_long allows; "" when it names none or
// several (env then fails).
func envLongName(w string) string {
	if _, ok := envLong[w]; ok {
		return w
	}
	found := ""
	for name := range envLong {
		if strings.HasPrefix(name, w) {
			if found != "" {
				return ""
			}
			found = name
		}
	}
	return found
}

// env sees through env: its options as getopt reads them (clusters such
// as -iS, abbreviated long options), its NAME=VALUE words, and the string
// of -S/--split-string, which env splits into words put before its other
// operands and reads options from again: judged as the command
// "env STRING REST". It returns the words of the command env runs.
func (a *Analysis) env(src string, args []*syntax.Word, depth int) []*syntax.Word {
	split := func(str string, next int) {
		code := "env " + str
		if next < len(args) {
			code += " " + raw(src, args[next:])
		}
		a.parse(code, depth+1)
	}
	i := 0
options:
	for ; i < len(args); i++ {
		w, ok := lit(args[i])
		switch {
		case !ok:
			a.opaque("env is given a computed argument")
			return nil
		case w == "--":
			i++
			break options
		case !strings.HasPrefix(w, "-") || w == "-":
			break options
		case strings.HasPrefix(w, "--"):
			name, value, attached := strings.Cut(w[2:], "=")
			name = envLongName(name)
			if envLong[name] == 1 && !attached {
				if i+1 >= len(args) {
					return nil
				}
				i++
				if value, ok = lit(args[i]); !ok {
					a.opaque("env --%s is given a computed value", name)
					return nil
				}
			}
			switch name {
			case "split-string":
				split(value, i+1)
				return nil
			case "chdir":
				a.ChangesDir = true
			}
		default:
			for j := 1; j < len(w); j++ {
				c := w[j]
				if strings.IndexByte("uCS", c) < 0 {
					continue // -i, -0, -v; an unknown letter makes env fail
				}
				value := w[j+1:]
				if value == "" {
					if i+1 >= len(args) {
						return nil
					}
					i++
					if value, ok = lit(args[i]); !ok {
						a.opaque("env -%c is given a computed value", c)
						return nil
					}
				}
				switch c {
				case 'S':
					split(value, i+1)
					return nil
				case 'C':
					a.ChangesDir = true
				}
				break
			}
		}
	}
	if i < len(args) {
		if w, ok := lit(args[i]); ok && w == "-" { // a lone - is -i
			i++
		}
	}
	for ; i < len(args); i++ {
		w, ok := lit(args[i])
		if !ok {
			a.opaque("env is given a computed argument")
			return nil
		}
		name, _, isAssign := strings.Cut(w, "=")
		if !isAssign {
			break
		}
		if dangerousVar(name) {
			a.runsLater(name, "env")
		}
	}
	if i >= len(args) {
		return nil
	}
	return args[i:]
}
