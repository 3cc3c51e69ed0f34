package permission

// Wrappers: commands that run another command given in their words
// (env, nice, timeout, xargs, sudo, find -exec, the shells' -c, …), and
// the option parsing that finds where the inner command starts. The
// runners with a table of their own are in runners.go.

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unwrap sees through wrappers: it returns the words of the command a
// wrapper runs (nil when none), and whether the wrapper is transparent.
func (a *Analysis) unwrap(src string, s *Simple, words []*syntax.Word, depth int) (inner []*syntax.Word, transparent bool) {
	args := words[1:]
	switch s.Program {
	case "command", "builtin", "exec", "nohup", "time", "nice", "timeout", "stdbuf", "setsid", "ionice", "chrt", "taskset":
		i, alts := skipOptions(s.Program, args)
		if s.Program == "command" && i > 0 && (flagIn(args[:i], 'v') || flagIn(args[:i], 'V')) {
			return nil, true // command -v only looks the name up
		}
		if s.Program == "timeout" && i < len(args) {
			i++ // the duration
		}
		if s.Program == "taskset" && i < len(args) {
			i++ // the mask
		}
		if s.Program == "chrt" && i < len(args) {
			i++ // the priority
		}
		operand := s.Program == "timeout" || s.Program == "taskset" || s.Program == "chrt"
		a.alsoRuns(src, args, alts, operand, false, depth)
		if i >= len(args) {
			return nil, true
		}
		return args[i:], true
	case "sudo", "doas":
		i, alts := skipOptions(s.Program, args)
		a.alsoRuns(src, args, alts, false, false, depth)
		if i >= len(args) {
			return nil, false
		}
		return args[i:], false // elevation needs its own allowance
	case "env":
		inner := a.env(src, args, depth)
		return inner, true
	case "xargs":
		i, alts := skipOptions("xargs", args)
		if r, ok := xargsReplace(args[:i]); !ok {
			a.opaque("xargs -I is given a computed replacement")
		} else if r != "" {
			a.replace = r // until call has read the command
		}
		s.MoreArgs = true
		a.alsoRuns(src, args, alts, false, true, depth)
		if i >= len(args) {
			return nil, true // xargs alone runs echo
		}
		return args[i:], true
	case "eval":
		// A literal string is judged as written, but never allowed
		// without asking; a computed one cannot be seen.
		if str, ok := joinLit(args); ok {
			a.Danger = append(a.Danger, "it runs a string with eval")
			a.parse(str, depth+1)
		} else {
			a.opaque("eval runs a computed string as code")
		}
		return nil, false
	case "trap":
		a.trap(args, depth)
		return nil, false
	case "source", ".":
		a.source(s.Program, args, depth)
		return nil, false
	case "compgen", "complete":
		a.completion(s.Program, args, depth)
		return nil, false
	case "find":
		a.findExec(src, s, args, depth)
		return nil, false
	case "busybox":
		if len(args) > 0 {
			return args, true
		}
		return nil, false
	}
	if shells[s.Program] {
		a.shell(s, args, depth)
	}
	if r, ok := runners[s.Program]; ok {
		if s.Program == "parallel" {
			a.parallelReplace(args)
		}
		a.runner(src, s, r, args, depth)
	}
	a.codeInOptions(s.Program, args, depth)
	a.later(s, args, depth)
	a.names(s, args)
	return nil, false
}

// shell follows bash -c 'script'; a shell reading its input is opaque.
// -c only marks the first operand, after every option, as the command
// string: bash -c -x -- 'rm v' runs rm v.
func (a *Analysis) shell(s *Simple, args []*syntax.Word, depth int) {
	command := false // -c was given
	for i := 0; i < len(args); i++ {
		w, ok := lit(args[i])
		if !ok && !command {
			a.opaque("%s is given a computed argument", s.Program)
			return
		}
		switch {
		case command && (w == "-o" || w == "+o" || w == "-O" || w == "+O"):
			i++
		case command && w == "--":
			if i+1 >= len(args) {
				a.opaque("%s -c has no command", s.Program)
				return
			}
			a.commandString(s, args[i+1], depth)
			return
		case command && ok && (strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+")) && len(w) > 1:
		case command:
			a.commandString(s, args[i], depth)
			return
		case w == "--":
			i++
			if i >= len(args) {
				a.opaque("%s reads commands from its input", s.Program)
				return
			}
			a.scriptFile(s.Program, args[i])
			return
		case w == "--rcfile" || w == "--init-file":
			a.opaque("%s %s runs a file of shell code, which cannot be checked", s.Program, w)
			return
		case w == "-o" || w == "+o" || w == "-O" || w == "+O":
			i++
		case strings.HasPrefix(w, "-") && len(w) > 1 && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'c'):
			command = true
			if strings.ContainsAny(w, "oO") { // -co NAME: the option's value first
				i++
			}
		case strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+"):
			if strings.ContainsRune(w, 's') && !strings.HasPrefix(w, "--") {
				a.opaque("%s -s reads commands from its input", s.Program)
				return
			}
		default:
			a.scriptFile(s.Program, args[i])
			return
		}
	}
	if command {
		a.opaque("%s -c has no command", s.Program)
		return
	}
	a.opaque("%s reads commands from its input", s.Program)
}

// commandString judges the command string of a shell's -c.
func (a *Analysis) commandString(s *Simple, w *syntax.Word, depth int) {
	str, ok := lit(w)
	if !ok {
		a.opaque("%s -c is given a computed command", s.Program)
		return
	}
	a.parse(str, depth+1)
}

// scriptFile makes a shell's script file opaque: its code is not in the
// command.
func (a *Analysis) scriptFile(prog string, w *syntax.Word) {
	v, _ := lit(w)
	a.opaque("%s runs the script file %q, whose code cannot be checked", prog, v)
}

// findExec follows find's -exec, -execdir, -ok and -okdir.
func (a *Analysis) findExec(src string, s *Simple, args []*syntax.Word, depth int) {
	for i := 0; i < len(args); i++ {
		w, _ := lit(args[i])
		if w != "-exec" && w != "-execdir" && w != "-ok" && w != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(args) {
			if e, _ := lit(args[j]); e == ";" || e == "+" {
				break
			}
			j++
		}
		if j > i+1 {
			before := len(a.Commands)
			replace := a.replace
			a.replace = "{}"
			a.call(src, args[i+1:j], depth)
			a.replace = replace
			for k := before; k < len(a.Commands); k++ {
				a.Commands[k].MoreArgs = true // {} is a file name
			}
		}
		i = j
	}
}

// alsoRuns judges, as commands the script runs, the words a wrapper's
// command may start at (alts) when its options leave it uncertain;
// operand skips the word a wrapper takes before its command (timeout's
// duration), more marks commands given more arguments (xargs).
func (a *Analysis) alsoRuns(src string, args []*syntax.Word, alts []int, operand, more bool, depth int) {
	for _, i := range alts {
		if operand {
			i++
		}
		if i >= len(args) {
			continue
		}
		before := len(a.Commands)
		a.call(src, args[i:], depth)
		for k := before; k < len(a.Commands); k++ {
			a.Commands[k].MoreArgs = a.Commands[k].MoreArgs || more
		}
	}
}

func flagIn(args []*syntax.Word, c byte) bool {
	for _, w := range args {
		if v, ok := lit(w); ok && strings.HasPrefix(v, "-") && strings.IndexByte(v, c) > 0 {
			return true
		}
	}
	return false
}

// xargsReplace is the text xargs's options (opts, the words before its
// command) replace with each input line: -I R, -IR, -i[R] and
// --replace[=R] (abbreviated too), {} by default; "" without them, false
// when it is computed.
func xargsReplace(opts []*syntax.Word) (string, bool) {
	replace := ""
	for i := 0; i < len(opts); i++ {
		w, _ := lit(opts[i])
		if long, ok := strings.CutPrefix(w, "--"); ok {
			name, value, attached := strings.Cut(long, "=")
			if name != "" && strings.HasPrefix("replace", name) {
				replace = "{}"
				if attached && value != "" {
					replace = value
				}
			} else if name != "" && !attached && slices.ContainsFunc(wrapperOpts["xargs"].long, func(l string) bool { return strings.HasPrefix(l, "--"+name) }) {
				i++ // its value
			}
			continue
		}
		for j := 1; j < len(w); j++ {
			c := w[j]
			if c == 'i' {
				replace = "{}"
				if j+1 < len(w) {
					replace = w[j+1:]
				}
				break
			}
			if strings.IndexByte(wrapperOpts["xargs"].value, c) < 0 {
				continue
			}
			if c == 'I' {
				if j+1 < len(w) {
					replace = w[j+1:]
				} else if i+1 < len(opts) {
					v, ok := lit(opts[i+1])
					if !ok {
						return "", false
					}
					replace = v
				}
			}
			if j+1 == len(w) {
				i++ // the value is the next word
			}
			break
		}
	}
	return replace, true
}

// parallelReplace sets what GNU parallel replaces with its input in the
// command it runs: {}, {.}, {/}, {#}, {1}, {= perl =} and the like, all
// starting with {; a string of -I/--replace's own makes the command
// opaque.
func (a *Analysis) parallelReplace(args []*syntax.Word) {
	for _, w := range args {
		v, ok := lit(w)
		if ok && v == ":::" {
			break
		}
		if ok && (strings.HasPrefix(v, "-I") || strings.HasPrefix(v, "--replace") || strings.HasPrefix(v, "--rep")) {
			a.opaque("parallel -I replaces text of its own with its input")
			return
		}
	}
	a.replace = "{"
}
