package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// names gathers the builtins whose words bash takes as variable names (a
// subscript in one is arithmetic: arith.go) or as arithmetic: read,
// mapfile and readarray, printf -v, wait -p, getopts, unset, test -v,
// let, and the declare family written as a command (behind builtin or
// command, which the parser does not see as a declaration).
func (a *Analysis) names(s *Simple, args []*syntax.Word) {
	switch s.Program {
	case "read":
		a.namedBy("read", args, "adinNptu", "a", true, true)
	case "mapfile", "readarray":
		a.namedBy(s.Program, args, "dnOsuCc", "", true, true)
	case "printf":
		a.namedBy("printf -v", args, "v", "v", false, true)
	case "wait":
		a.namedBy("wait -p", args, "p", "p", false, false) // a process id
	case "getopts":
		// getopts OPTSTRING NAME [ARG…]: NAME gets an option's letter.
		if len(args) > 1 {
			a.nameWord("getopts", args[1])
		}
	case "unset":
		for _, w := range args {
			v, ok := lit(w)
			switch {
			case ok && v == "-f":
				return // functions' names
			case ok && strings.HasPrefix(v, "-"):
			default:
				a.nameWord("unset", w)
			}
		}
	case "test", "[":
		for i, w := range args {
			v, ok := lit(w)
			switch {
			case !ok:
			case (v == "-v" || v == "-R") && i+1 < len(args):
				a.nameWord(s.Program+" -v", args[i+1])
			case v == "-eq" || v == "-ne" || v == "-lt" || v == "-le" || v == "-gt" || v == "-ge":
				// Compared as integers, not evaluated (arith.go); code
				// written in an operand is still refused.
				for _, j := range []int{i - 1, i + 1} {
					if j < 0 || j >= len(args) {
						continue
					}
					if o, ok := lit(args[j]); ok && hidesCode(o) {
						a.opaque("%s is given %q, which would run code were it evaluated", s.Program, o)
					}
				}
			}
		}
	case "let":
		for _, w := range args {
			a.evalParts(w.Parts, false)
		}
	case "declare", "typeset", "local", "export", "readonly":
		a.declare(s.Program, args, nil)
	}
}

// namedBy gathers a builtin that assigns variables it is given the names
// of: its options, those of valued taking the next word (or the rest of
// theirs) as their value, those of nameOpts taking a name; with operands,
// the words after the options are names too. data reports that the
// values assigned come from input, not from the script.
func (a *Analysis) namedBy(how string, args []*syntax.Word, valued, nameOpts string, operands, data bool) {
	named := func(base string) {
		if base != "" && data {
			a.record(base, arithValue{})
		}
	}
	i := 0
options:
	for ; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case !ok:
			break options // computed: judged as a name below, whatever it is
		case v == "--":
			i++
			break options
		case !strings.HasPrefix(v, "-") || v == "-":
			break options
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(valued, v[j]) < 0 {
				continue
			}
			isName := strings.IndexByte(nameOpts, v[j]) >= 0
			switch {
			case j+1 < len(v) && isName:
				named(a.nameText(v[j+1:]))
			case j+1 < len(v):
			case i+1 < len(args):
				i++
				if isName {
					named(a.nameWord(how, args[i]))
				}
			}
			break
		}
	}
	if !operands {
		return
	}
	for _, w := range args[i:] {
		named(a.nameWord(how, w))
	}
}
