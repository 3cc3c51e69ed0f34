package permission

// Arithmetic and subscripts: bash evaluates the text of an arithmetic
// expression at run time, and the value of every variable named in one as
// an arithmetic expression in turn; a subscript in that text (a[…]) is
// expanded first, so a $(…), `…` or ${…} in it runs. Quoted words reach
// such places as data the parser cannot see into: the operands of
// [[ … -eq … ]], the names read, printf -v, test -v, unset, wait -p,
// getopts, mapfile and the declare family assign or look up (a[…] is a
// name), let's words, and every value given to a variable with the integer
// attribute (declare -i). A script whose evaluated text holds such code,
// or evaluates a value computed when it runs (read, $(…), a loop's words
// from a glob), is opaque. Facts are gathered over the whole script, in
// any order, and judged when it has been read (judgeArith).
//
// The test and [ builtins compare integers without evaluating them (bash
// manual, "Bash Conditional Expressions": only [[ evaluates arg1 and arg2
// as arithmetic; read 2026-12-05, checked with bash 5.2.15): only code
// written in their operands is held against them, and -v's name.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arithFacts are what a script's arithmetic depends on, shared by the
// analyses of the code it runs in strings.
type arithFacts struct {
	refs     []string                // variables arithmetic names
	values   map[string][]arithValue // every value the script gives each variable
	ints     map[string]bool         // variables given the integer attribute
	namerefs map[string]string       // declare -n name=target
	loops    map[string][]arithValue // the words for loops give each variable (hidden.go)
}

// arithValue is one value given to a variable: its text, or unknown.
type arithValue struct {
	text  string
	known bool
}

// taintedVars are set by bash from data (input, arguments, the file
// system), never from the script's text.
var taintedVars = map[string]bool{
	"@": true, "*": true, "_": true, "REPLY": true, "OPTARG": true, "MAPFILE": true, "BASH_REMATCH": true,
	"BASH_ARGV": true, "BASH_ARGV0": true, "BASH_COMMAND": true, "BASH_EXECUTION_STRING": true,
	"BASH_SOURCE": true, "FUNCNAME": true, "PWD": true, "OLDPWD": true, "DIRSTACK": true,
	"READLINE_LINE": true, "COMP_LINE": true, "COMP_WORDS": true,
}

func (a *Analysis) arith() *arithFacts {
	if a.facts == nil {
		a.facts = &arithFacts{}
	}
	return a.facts
}

func (a *Analysis) ref(name string) { f := a.arith(); f.refs = append(f.refs, name) }

func (a *Analysis) record(name string, v arithValue) {
	f := a.arith()
	if f.values == nil {
		f.values = map[string][]arithValue{}
	}
	f.values[name] = append(f.values[name], v)
}

// recordWord records a word given to a variable as its value.
func (a *Analysis) recordWord(name string, w *syntax.Word) {
	if w == nil {
		a.record(name, arithValue{known: true})
		return
	}
	a.record(name, wordValue(w))
}

// wordValue is the value a word gives a variable.
func wordValue(w *syntax.Word) arithValue {
	v, ok := lit(w)
	if !ok && numeric(w) {
		v, ok = "0", true
	}
	return arithValue{text: v, known: ok}
}

// numeric reports whether a computed word is always a number: $((…)),
// ${#…}, $#, $?, $$ and $!, and digits.
func numeric(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.ArithmExp:
		case *syntax.ParamExp:
			short := p.Param != nil && p.Exp == nil && p.Index == nil && !p.Excl && p.Slice == nil && p.Repl == nil && p.Names == 0 &&
				(p.Param.Value == "#" || p.Param.Value == "?" || p.Param.Value == "$" || p.Param.Value == "!")
			if !p.Length && !short {
				return false
			}
		case *syntax.Lit:
			if strings.Trim(p.Value, "0123456789-") != "" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// arithNode gathers what one node of the script's tree evaluates.
func (a *Analysis) arithNode(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.ArithmCmd:
		a.arithm(n.X)
	case *syntax.ArithmExp:
		a.arithm(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			a.arithm(x)
		}
	case *syntax.CStyleLoop:
		a.arithm(n.Init)
		a.arithm(n.Cond)
		a.arithm(n.Post)
	case *syntax.ForClause:
		if it, ok := n.Loop.(*syntax.WordIter); ok {
			if n.Select || !it.InPos.IsValid() { // the person's choice; the arguments
				a.loopTarget(it.Name.Value, arithValue{})
			}
			for _, w := range it.Items {
				v := wordValue(w)
				v.known = v.known && !hasMeta(w)
				a.loopTarget(it.Name.Value, v)
			}
		}
	case *syntax.ParamExp:
		a.indirect(n)
		if w, ok := n.Index.(*syntax.Word); !ok || !isAllIndex(w) {
			a.arithm(n.Index)
		}
		if n.Slice != nil {
			a.arithm(n.Slice.Offset)
			a.arithm(n.Slice.Length)
		}
		if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
			a.recordWord(n.Param.Value, n.Exp.Word)
		}
	case *syntax.Assign:
		if n.Naked || n.Name == nil {
			return
		}
		a.arithm(n.Index)
		switch {
		case n.Array != nil:
			for _, e := range n.Array.Elems {
				a.arithm(e.Index)
				if e.Value != nil {
					a.recordWord(n.Name.Value, e.Value)
				}
			}
		default:
			a.recordWord(n.Name.Value, n.Value)
		}
	case *syntax.DeclClause:
		var words []*syntax.Word
		for _, as := range n.Args {
			if as.Naked && as.Value != nil {
				words = append(words, as.Value)
			}
		}
		a.declare(n.Variant.Value, words, n.Args)
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if w, ok := x.(*syntax.Word); ok {
					a.evalParts(w.Parts, false)
				}
			}
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			if w, ok := n.X.(*syntax.Word); ok {
				a.nameWord("[[ -v ]]", w)
			}
		}
	}
}

func isAllIndex(w *syntax.Word) bool {
	v, ok := lit(w)
	return ok && (v == "@" || v == "*")
}

// arithm gathers what an arithmetic expression of the tree evaluates.
func (a *Analysis) arithm(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		a.arithm(x.X)
		a.arithm(x.Y)
	case *syntax.UnaryArithm:
		a.arithm(x.X)
	case *syntax.ParenArithm:
		a.arithm(x.X)
	case *syntax.Word:
		a.evalParts(x.Parts, false)
	}
}

// evalParts gathers what bash evaluates when it takes the text of parts
// as an arithmetic expression: the variables it names, and code or
// values computed when it runs, which make the script opaque.
func (a *Analysis) evalParts(parts []syntax.WordPart, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				a.evalText(unescapeDouble(p.Value))
			} else {
				a.evalText(unescape(p.Value))
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var ok bool
				if v, ok = ansiC(v); !ok {
					a.opaque("arithmetic evaluates a string that cannot be decoded")
					continue
				}
			}
			a.evalText(v)
		case *syntax.DblQuoted:
			if p.Dollar { // translated through a message catalog when it runs
				a.opaque("arithmetic evaluates a locale-translated string")
				continue
			}
			a.evalParts(p.Parts, true)
		case *syntax.ParamExp:
			a.evalParam(p)
		case *syntax.ArithmExp: // a number; its own expression is a node of the tree
		default:
			a.opaque("arithmetic evaluates text computed when the script runs (a subscript in it would run code)")
		}
	}
}

// evalParam gathers a ${…} whose value arithmetic evaluates.
func (a *Analysis) evalParam(p *syntax.ParamExp) {
	switch {
	case p.Length: // a number
		return
	case p.Param == nil || p.Excl || p.Repl != nil || p.Slice != nil || p.Names != 0 || p.NestedParam != nil || p.Width || p.IsSet || p.Flags != nil:
		a.opaque("arithmetic evaluates text computed when the script runs (a subscript in it would run code)")
		return
	case p.Exp != nil:
		switch p.Exp.Op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull, syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if p.Exp.Word != nil {
				a.evalParts(p.Exp.Word.Parts, false)
			}
		default:
			a.opaque("arithmetic evaluates text computed when the script runs (a subscript in it would run code)")
			return
		}
	}
	a.ref(p.Param.Value)
}

// evalText gathers literal text bash evaluates as arithmetic: code in it
// makes the script opaque; the names in it are evaluated in turn.
func (a *Analysis) evalText(v string) {
	if hidesCode(v) {
		if len(v) > 60 {
			v = v[:60] + "…"
		}
		a.opaque("bash evaluates %q as arithmetic or a subscript, which runs the code in it", v)
		return
	}
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case isNameStart(c):
			j := i + 1
			for j < len(v) && (isNameStart(v[j]) || v[j] >= '0' && v[j] <= '9') {
				j++
			}
			a.ref(v[i:j])
			i = j
		case c >= '0' && c <= '9': // a number, 0x1f and 16#ff included
			for i < len(v) && (isNameStart(v[i]) || v[i] >= '0' && v[i] <= '9' || v[i] == '#' || v[i] == '@') {
				i++
			}
		default:
			i++
		}
	}
}

// hidesCode reports whether text bash expands as a subscript holds a
// command substitution or an expansion other than $name.
func hidesCode(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '`':
			return true
		case '$':
			if i+1 >= len(v) || !isNameStart(v[i+1]) {
				return true
			}
		}
	}
	return false
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// nameWord gathers a variable name a builtin is given (how names it), and
// returns its base ("" when computed): a subscript in it is evaluated.
func (a *Analysis) nameWord(how string, w *syntax.Word) string {
	if v, ok := lit(w); ok {
		return a.nameText(v)
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok {
		if base, sub, ok := strings.Cut(l.Value, "["); ok && validName(base) {
			a.evalText(sub)
			a.evalParts(w.Parts[1:], false)
			return base
		}
	}
	a.opaque("%s is given a variable name computed when it runs", how)
	return ""
}

// nameText is nameWord's literal case.
func (a *Analysis) nameText(v string) string {
	base, sub, ok := strings.Cut(v, "[")
	if ok {
		a.evalText(sub)
	}
	return base
}

func validName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameStart(s[i]) && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}
