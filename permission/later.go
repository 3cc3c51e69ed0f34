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
	// The cases that see code make its analysis; most commands are none
	// of them, and make nothing (it escapes into the closures below).
	var in *Analysis
	nested := func() *Analysis { n := a.nested(); return &n }
	switch s.Program {
	case "alias":
		in = nested()
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
		in = nested()
		optionValues(args, "-p", func(prog string, ok bool, next int) {
			if !ok || prog == "" {
				in.opaque("hash -p is given a computed program")
				return
			}
			in.bindsProgram("hash -p "+prog, prog)
			for _, w := range args[next:] { // the names it binds
				name, ok := lit(w)
				if !ok || strings.HasPrefix(name, "-") {
					break
				}
				a.rename(name, shellQuote(prog))
			}
		})
	case "mapfile", "readarray":
		in = nested()
		optionValues(args, "-C", func(code string, ok bool, _ int) {
			if !ok {
				in.opaque("%s -C is given a computed callback", s.Program)
				return
			}
			in.parse(code, depth+1)
		})
		a.setsNamed(s.Program, args)
	case "read", "getopts":
		a.setsNamed(s.Program, args)
	case "printf":
		in = nested()
		optionValues(args, "-v", func(name string, ok bool, _ int) {
			if !ok {
				in.opaque("printf -v is given a computed name")
				return
			}
			a.sets(name, "printf -v")
		})
	default:
		return
	}
	if in != nil {
		a.absorb(in)
	}
}

// bindsProgram records that the script may run the program prog (a path or a
// name), bound where text binds it: deny and ask rules judge it there.
func (a *Analysis) bindsProgram(text, prog string) {
	bound := Simple{Text: text}
	bound.setProgram(prog)
	a.Commands = append(a.Commands, bound)
}

// rename records that the script's later uses of name run text.
func (a *Analysis) rename(name, text string) {
	if a.renamed != nil {
		a.renamed[name] = text
	}
}

// expand judges a use of a name the script renamed (an alias, a hash -p
// binding) as the text it stands for followed by the rest of its source
// line, comments included, as bash lexes an alias's text and what follows
// it afresh: "s rm x" after "alias s=strace" runs strace rm x, and
// "b #; rm x" after "alias b='echo \'" runs rm x. A text ending in a
// blank makes bash expand the next word as an alias too: when that word
// is a name the script renamed, the use is opaque.
func (a *Analysis) expand(src, prog string, words []*syntax.Word, depth int) {
	text, ok := a.renamed[prog]
	if !ok {
		return
	}
	if strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\t") {
		if len(words) > 1 {
			if next, ok := lit(words[1]); ok && a.renamed[next] != "" {
				a.opaque("the alias %s ends in a blank, so the alias %s after it is expanded too", prog, next)
			}
		}
	}
	if a.expansions != nil {
		if *a.expansions++; *a.expansions > maxExpansions {
			a.opaque("the script uses the names it renamed more than %d times", maxExpansions)
			return
		}
	}
	if lexesAlone(text) {
		if len(words) > 1 {
			text += " " + raw(src, words[1:])
		}
	} else {
		text += restOfLine(src, int(words[0].End().Offset()))
	}
	in := a.nested()
	in.parse(text, depth+1)
	a.absorb(&in)
}

// maxExpansions bounds the uses of renamed names a script's analysis
// expands: each is parsed again, with what it is given.
const maxExpansions = 256

// lexesAlone reports whether an alias's text leaves how the words after
// it lex unchanged: it parses on its own and ends in a plain character,
// not a backslash, a $ or an operator that would join what follows.
func lexesAlone(text string) bool {
	if text == "" || strings.IndexByte("\\$`<>|&;(){}#=", text[len(text)-1]) >= 0 {
		return false
	}
	parser := parsers.Get().(*syntax.Parser)
	_, err := parser.Parse(strings.NewReader(text), "")
	parsers.Put(parser)
	return err == nil
}

// restOfLine is src from offset to the end of its line; a newline after
// a backslash continues the line.
func restOfLine(src string, offset int) string {
	if offset > len(src) {
		return ""
	}
	rest := src[offset:]
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '\n':
			return rest[:i]
		}
	}
	return rest
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

// laterArrays are the arrays behind alias and hash -p: a key set in
// BASH_ALIASES is an alias, one set in BASH_CMDS a hash -p binding.
var laterArrays = map[string]bool{"BASH_ALIASES": true, "BASH_CMDS": true}

// laterAssign judges an assignment to BASH_ALIASES or BASH_CMDS (k=v,
// k[key]=v, k=([key]=v …), with += too) as alias or hash -p would be.
func (a *Analysis) laterAssign(as *syntax.Assign, depth int) {
	in := a.nested()
	array := as.Name.Value
	bind := func(index syntax.ArithmExpr, value *syntax.Word) {
		key, keyOK := arrayKey(index)
		text, ok := lit(value)
		if !keyOK || !ok {
			in.opaque("%s is given a computed key or value", array)
			return
		}
		if array == "BASH_CMDS" {
			in.bindsProgram(array+"["+key+"]="+text, text)
			text = shellQuote(text)
		} else {
			in.parse(text, depth+1)
		}
		a.rename(key, text)
	}
	switch {
	case as.Array != nil:
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				bind(e.Index, e.Value)
			}
		}
	case as.Value != nil:
		bind(as.Index, as.Value)
	}
	a.absorb(&in)
}

// arrayKey is an array element's literal key (element 0 without one).
func arrayKey(index syntax.ArithmExpr) (string, bool) {
	if index == nil {
		return "0", true
	}
	w, ok := index.(*syntax.Word)
	if !ok {
		return "", false
	}
	return lit(w)
}

// sets records that how sets the variable named (name, or name[key]) by
// other means than an assignment the parser sees: read, printf -v, a name
// reference, ${name:=…}. BASH_ALIASES and BASH_CMDS set so are opaque
// (what they bind cannot be seen); the variables that change what later
// commands run are dangerous, as assigned ones are.
func (a *Analysis) sets(name, how string) {
	base, _, _ := strings.Cut(name, "[")
	switch {
	case laterArrays[base]:
		a.opaque("%s sets %s", how, base)
	case dangerousVar(base):
		a.runsLater(base, how)
	}
}

// setsNamed applies sets to each literal word of a builtin that assigns
// the variables its words name (read, getopts, mapfile); options are
// skipped, a computed word is opaque.
func (a *Analysis) setsNamed(prog string, args []*syntax.Word) {
	for _, w := range args {
		v, ok := lit(w)
		switch {
		case !ok:
			if laterOrDangerousIn(w) {
				a.opaque("%s assigns a computed name", prog)
			}
		case !strings.HasPrefix(v, "-"):
			a.sets(v, prog)
		}
	}
}

// laterOrDangerousIn reports whether a computed word's literal parts name
// a variable sets would flag (BASH_CMDS"[ls]").
func laterOrDangerousIn(w *syntax.Word) bool {
	for _, p := range w.Parts {
		var v string
		switch p := p.(type) {
		case *syntax.Lit:
			v = p.Value
		case *syntax.SglQuoted:
			v = p.Value
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				if l, ok := p.Parts[0].(*syntax.Lit); ok {
					v = l.Value
				}
			}
		}
		base, _, _ := strings.Cut(v, "[")
		if laterArrays[base] || (base != "" && dangerousVar(base)) {
			return true
		}
	}
	return false
}
