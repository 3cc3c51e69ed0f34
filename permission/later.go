package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// later sees code that builtins keep to run later, under another name or
// on an event: an alias's text (run where its name is used, once
// expand_aliases is set), the program hash -p binds to a name, and
// mapfile's -C callback. Deny and ask rules see it where it is defined
// (Analysis.Maybe), and again, with the words it is given, where the
// script uses the name (expand); code that cannot be seen is opaque.
func (a *Analysis) later(s *Simple, args []*syntax.Word, depth int) {
	in := a.nested()
	switch s.Program {
	case "alias":
		for _, w := range args {
			v, ok := lit(w)
			if !ok {
				in.opaque("alias is given a computed definition")
				continue
			}
			if name, text, isDef := strings.Cut(v, "="); isDef {
				a.rename(name, text)
				in.parse(text, depth+1)
			}
		}
	case "hash":
		optionValues(args, "-p", func(prog string, ok bool, next int) {
			if !ok || prog == "" {
				in.opaque("hash -p is given a computed program")
				return
			}
			bound := Simple{Text: "hash -p " + prog}
			bound.setProgram(prog)
			in.Commands = append(in.Commands, bound)
			for _, w := range args[next:] { // the names it binds
				name, ok := lit(w)
				if !ok || strings.HasPrefix(name, "-") {
					break
				}
				a.rename(name, shellQuote(prog))
			}
		})
	case "mapfile", "readarray":
		optionValues(args, "-C", func(code string, ok bool, _ int) {
			if !ok {
				in.opaque("%s -C is given a computed callback", s.Program)
				return
			}
			in.parse(code, depth+1)
		})
	default:
		return
	}
	a.absorb(&in)
}

// rename records that the script's later uses of name run text.
func (a *Analysis) rename(name, text string) {
	if a.renamed != nil {
		a.renamed[name] = text
	}
}

// expand judges a use of a name the script renamed (an alias, a hash -p
// binding) as the text it stands for followed by the words it is given:
// "s rm x" after "alias s=strace" runs strace rm x.
func (a *Analysis) expand(src, prog string, words []*syntax.Word, depth int) {
	text, ok := a.renamed[prog]
	if !ok {
		return
	}
	if len(words) > 1 {
		text += " " + raw(src, words[1:])
	}
	in := a.nested()
	in.parse(text, depth+1)
	a.absorb(&in)
}

// shellQuote quotes s as one shell word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// optionValues calls f with the value of each option flag (-p) in args,
// attached (-pVALUE) or the next word, and the index of the word after
// it; ok is false for a computed value.
func optionValues(args []*syntax.Word, flag string, f func(value string, ok bool, next int)) {
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case ok && v == flag && i+1 < len(args):
			i++
			value, ok := lit(args[i])
			f(value, ok, i+1)
		case ok && strings.HasPrefix(v, flag) && len(v) > len(flag):
			f(v[len(flag):], true, i+1)
		}
	}
}
