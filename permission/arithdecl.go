package permission

// Declarations and the end of the script: what declare and its kin give
// a name (attributes, values), and the judgement of every value that
// reaches arithmetic once the whole script has been read.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// declare gathers declare, typeset, local, export and readonly: the
// attributes their options give (-i: every value is arithmetic; -n: a
// name reference, whose values are its target's), and the names and
// values of words the parser did not split into assignments (quoted ones,
// or all of them behind builtin or command). assigns are the ones it did
// split, whose values arithNode records.
func (a *Analysis) declare(prog string, words []*syntax.Word, assigns []*syntax.Assign) {
	integer, nameref := false, false
	for _, w := range words {
		if v, ok := lit(w); ok && strings.HasPrefix(v, "-") {
			integer = integer || strings.Contains(v, "i")
			nameref = nameref || strings.Contains(v, "n")
		}
	}
	if !integer && !nameref && len(words) == 0 {
		return // plain assignments: arithNode records them
	}
	f := a.arith()
	mark := func(name, target string, targetKnown bool) {
		if integer {
			if f.ints == nil {
				f.ints = map[string]bool{}
			}
			f.ints[name] = true
		}
		if nameref && (!targetKnown || target == "") {
			a.opaque("the name reference %s is declared without a target, which its first assignment gives it", name)
		}
		if nameref && targetKnown {
			if f.namerefs == nil {
				f.namerefs = map[string]string{}
			}
			f.namerefs[name] = a.nameText(target)
		}
	}
	for _, as := range assigns {
		if as.Name == nil { // a naked option or quoted word: in words
			continue
		}
		target, ok := "", false
		if !as.Naked && as.Value != nil {
			target, ok = lit(as.Value)
		}
		mark(as.Name.Value, target, ok)
	}
	for _, w := range words {
		v, ok := lit(w)
		switch {
		case ok && (strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+")):
		case ok:
			base, value, isAssign := splitDecl(v)
			if i := strings.IndexByte(base, '['); i >= 0 {
				// The subscript ends at its last ], after an = in it:
				// all that follows the [ is evaluated.
				a.evalText(v[i+1:])
				base = base[:i]
			}
			mark(base, value, isAssign)
			if isAssign {
				a.record(base, arithValue{text: value, known: true})
			}
		default:
			l, isLit := w.Parts[0].(*syntax.Lit)
			name, isAssign := "", false
			if isLit {
				name, _, isAssign = strings.Cut(l.Value, "=") // x=$y: a computed value
				name = strings.TrimSuffix(name, "+")
			}
			if !isAssign || !validName(name) {
				a.opaque("%s is given a variable name computed when it runs", prog)
				continue
			}
			mark(name, "", false)
			a.record(name, arithValue{})
		}
	}
}

// splitDecl splits a declaration's word, name[=value] or name[sub]=value,
// += too, at the = that ends the name: the first one outside brackets.
func splitDecl(v string) (name, value string, isAssign bool) {
	end := 0
	if i := strings.IndexAny(v, "=["); i >= 0 && v[i] == '[' {
		end = strings.LastIndex(v, "]")
	}
	if end < 0 {
		end = 0
	}
	j := strings.IndexByte(v[end:], '=')
	if j < 0 {
		return v, "", false
	}
	return strings.TrimSuffix(v[:end+j], "+"), v[end+j+1:], true
}

// judgeArith judges what the whole script's arithmetic evaluates, once it
// has been read: the values given to integer variables, and, through every
// name arithmetic reaches, the values of the variables named.
func (a *Analysis) judgeArith() {
	f := a.facts
	if f == nil {
		return
	}
	a.judgeHidden(f)
	if len(f.refs) == 0 && len(f.ints) == 0 {
		return
	}
	// A name reference and its target share their values and attributes.
	if len(f.namerefs) > 0 {
		root := func(n string) string {
			for range len(f.namerefs) { // a cycle ends somewhere
				t, ok := f.namerefs[n]
				if !ok {
					break
				}
				n = t
			}
			return n
		}
		groups := map[string][]string{}
		for r := range f.namerefs {
			groups[root(r)] = append(groups[root(r)], r)
		}
		for t, members := range groups {
			members = append(members, t)
			var joined []arithValue
			integer := false
			for _, m := range members {
				joined = append(joined, f.values[m]...)
				integer = integer || f.ints[m]
			}
			for _, m := range members {
				if f.values == nil {
					f.values = map[string][]arithValue{}
				}
				f.values[m] = joined
				if integer {
					f.ints[m] = true
				}
			}
		}
	}
	for name := range f.ints {
		for _, v := range f.values[name] {
			if !v.known {
				a.opaque("%s has the integer attribute and is given a value computed when the script runs (a subscript in it would run code)", name)
				break
			}
			a.evalText(v.text)
		}
	}
	seen := map[string]bool{}
	for i := 0; i < len(f.refs); i++ { // evalText appends to refs
		name := f.refs[i]
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if taintedVars[name] || (name[0] >= '1' && name[0] <= '9') {
			a.opaque("arithmetic evaluates $%s, which bash sets from data (a subscript in it would run code)", name)
			continue
		}
		for _, v := range f.values[name] {
			if !v.known {
				a.opaque("arithmetic evaluates $%s, whose value is computed when the script runs (a subscript in it would run code)", name)
				break
			}
			a.evalText(v.text)
		}
	}
}
