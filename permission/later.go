package permission

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// later sees code that builtins keep to run later, under another name or
// on an event: an alias's text (run where its name is used, once
// expand_aliases is set), the program hash -p binds to a name, and
// mapfile's -C callback. Deny and ask rules see it (Analysis.Maybe); code
// that cannot be seen is opaque.
func (a *Analysis) later(s *Simple, args []*syntax.Word, depth int) {
	var in Analysis
	switch s.Program {
	case "alias":
		for _, w := range args {
			v, ok := lit(w)
			if !ok {
				in.opaque("alias is given a computed definition")
				continue
			}
			if _, text, isDef := strings.Cut(v, "="); isDef {
				in.parse(text, depth+1)
			}
		}
	case "hash":
		optionValues(args, "-p", func(prog string, ok bool) {
			if !ok || prog == "" {
				in.opaque("hash -p is given a computed program")
				return
			}
			bound := Simple{Program: path.Base(prog), Text: "hash -p " + prog}
			if strings.Contains(prog, "/") {
				bound.Pathed, bound.Dir = true, path.Dir(prog)
			}
			in.Commands = append(in.Commands, bound)
		})
	case "mapfile", "readarray":
		optionValues(args, "-C", func(code string, ok bool) {
			if !ok {
				in.opaque("%s -C is given a computed callback", s.Program)
				return
			}
			in.parse(code, depth+1)
		})
	default:
		return
	}
	a.Maybe = append(append(a.Maybe, in.Commands...), in.Maybe...)
	a.Opaque = append(a.Opaque, in.Opaque...)
	a.Danger = append(a.Danger, in.Danger...)
	a.Redirects = append(a.Redirects, in.Redirects...)
	a.Words = append(a.Words, in.Words...)
}

// optionValues calls f with the value of each option flag (-p) in args,
// attached (-pVALUE) or the next word; ok is false for a computed value.
func optionValues(args []*syntax.Word, flag string, f func(value string, ok bool)) {
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case ok && v == flag && i+1 < len(args):
			i++
			f(lit(args[i]))
		case ok && strings.HasPrefix(v, flag) && len(v) > len(flag):
			f(v[len(flag):], true)
		}
	}
}
