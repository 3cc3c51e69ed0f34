package permission

// Builtins that run code given as a string or read from a file: trap's
// command, source and ., and the completion builtins' -C command, -F
// function and -W word list (whose words are expanded, $(…) included).

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stdinText is a statement's input given in the script: a here-string or
// a here-document; ok is false when it is expanded when it runs.
type stdinText struct {
	text string
	ok   bool
}

// stdinOf is the input a statement's redirections give it in the
// script, nil when it has none.
func stdinOf(st *syntax.Stmt) *stdinText {
	var in *stdinText
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.WordHdoc:
			v, ok := lit(r.Word)
			in = &stdinText{text: v + "\n", ok: ok}
		case syntax.Hdoc, syntax.DashHdoc:
			v, ok := "", true
			if r.Hdoc != nil {
				v, ok = lit(r.Hdoc)
			}
			in = &stdinText{text: v, ok: ok}
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			in = nil // a file: not in the script
		}
	}
	return in
}

// runsLater records that the script sets a variable that makes later
// commands run code the script does not show (PATH, PS4, BASH_ENV,
// BASH_FUNC_…, LD_PRELOAD): such a script is opaque.
func (a *Analysis) runsLater(name, how string) {
	if how != "" {
		how = " (" + how + ")"
	}
	a.opaque("it sets %s%s, which makes later commands run code that cannot be checked", name, how)
}

// trap sees trap's command: trap [-lpP] [--] [COMMAND] SIGNAL…; -l, -p
// and -P print.
func (a *Analysis) trap(args []*syntax.Word, depth int) {
	for i, w := range args {
		v, ok := lit(w)
		switch {
		case !ok:
			a.opaque("trap is given a computed command")
			return
		case v == "--":
			if i+1 < len(args) {
				a.trapCommand(args[i+1], depth)
			}
			return
		case v == "-":
			return // resets the signals
		case strings.HasPrefix(v, "-") && strings.Trim(v[1:], "lpP") == "":
			return // prints
		default:
			a.trapCommand(w, depth) // an unknown option too: judged as code, to be safe
			return
		}
	}
}

func (a *Analysis) trapCommand(w *syntax.Word, depth int) {
	v, ok := lit(w)
	if !ok {
		a.opaque("trap is given a computed command")
		return
	}
	if v != "-" {
		a.parse(v, depth+1)
	}
}

// stdinFiles name a shell's own input.
var stdinFiles = map[string]bool{"/dev/stdin": true, "/dev/fd/0": true, "/proc/self/fd/0": true, "/proc/thread-self/fd/0": true}

// source sees source and .: code read from the statement's input given
// literally in the script is parsed; a file's code is not in the script,
// which is then opaque.
func (a *Analysis) source(prog string, args []*syntax.Word, depth int) {
	i := 0
	if i < len(args) {
		if v, ok := lit(args[i]); ok && v == "--" {
			i++
		}
	}
	if i >= len(args) {
		return // an error: nothing is read
	}
	v, ok := lit(args[i])
	if ok && stdinFiles[v] && a.stdin != nil && a.stdin.ok {
		a.parse(a.stdin.text, depth+1)
		return
	}
	a.opaque("%s runs the file %q as shell code, which cannot be checked", prog, v)
}

// completion sees compgen and complete: -C's command runs, -F's function
// is called, -W's words are expanded (code in them runs).
func (a *Analysis) completion(prog string, args []*syntax.Word, depth int) {
	const valued = "oAGWFCXPS"
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		if !ok || !strings.HasPrefix(v, "-") || v == "-" || v == "--" {
			if !ok {
				a.opaque("%s is given a computed argument", prog)
			}
			if v == "--" || !strings.HasPrefix(v, "-") {
				return
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte(valued, c) < 0 {
				continue
			}
			var value *syntax.Word
			text, valueOK := v[j+1:], true
			if text == "" {
				if i+1 >= len(args) {
					break
				}
				i++
				value = args[i]
				text, valueOK = lit(value)
			}
			switch c {
			case 'C':
				if !valueOK {
					a.opaque("%s -C is given a computed command", prog)
				} else {
					a.parse(text, depth+1)
				}
			case 'F':
				if !valueOK {
					a.opaque("%s -F is given a computed function", prog)
				} else {
					a.parse(text, depth+1) // a function of the script, or a program of that name
				}
			case 'W':
				if !valueOK || hidesCode(text) {
					a.opaque("%s -W expands words that run code", prog)
				}
			}
			break
		}
	}
}
