package permission

// Code bash runs from a variable's value outside arithmetic, and the
// variables whose values bash evaluates without being told to.
//
// ${!name} takes name's value as the name of the variable to expand, and
// a subscript in that name is evaluated (x='a[$(rm v)]'; echo ${!x});
// ${name@P} expands the value as a prompt string, whose $(…) runs. Either
// makes the script opaque, whatever the value: only ${!name[@]} and
// ${!prefix*}, which list names, are not indirection.
//
// A name reference (declare -n) takes its target from its declaration,
// or else from its first assignment, read, printf -v or for loop; a for
// loop over a name reference gives it each word as its target in turn.
// The target is expanded as a name, subscript included, wherever the
// reference is used, so a reference declared without a literal target is
// opaque, and a loop's words are held to what a target may be.
//
// bash evaluates every value given to RANDOM, SRANDOM, OPTIND and
// HISTCMD as arithmetic, as it does for a variable with the integer
// attribute (checked with bash 5.2.15 on 2026-12-05: of bash's own
// variables only these four run a subscript's code on assignment).

import "mvdan.cc/sh/v3/syntax"

// bashInts are bash's own variables whose values are arithmetic.
var bashInts = map[string]bool{"RANDOM": true, "SRANDOM": true, "OPTIND": true, "HISTCMD": true}

// indirect gathers a ${…} that runs code from a value: indirection and
// prompt expansion.
func (a *Analysis) indirect(p *syntax.ParamExp) {
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil {
		if v, ok := lit(p.Exp.Word); !ok || v == "P" {
			a.opaque("${…@P} expands a value as a prompt, which runs the code in it")
			return
		}
	}
	if !p.Excl || p.Names != 0 {
		return
	}
	if w, ok := p.Index.(*syntax.Word); ok && isAllIndex(w) && p.Exp == nil && p.Slice == nil && p.Repl == nil {
		return // ${!a[@]}: a's keys
	}
	a.opaque("${!…} expands a name held in a value, and a subscript in it runs code")
}

// loopTarget records a word a for loop gives its variable: the variable's
// value, or, for a name reference, its target.
func (a *Analysis) loopTarget(name string, v arithValue) {
	a.record(name, v)
	f := a.arith()
	if f.loops == nil {
		f.loops = map[string][]arithValue{}
	}
	f.loops[name] = append(f.loops[name], v)
}

// judgeHidden judges, once the script has been read, the targets for
// loops give name references, and marks bash's integer variables that
// the script gives values.
func (a *Analysis) judgeHidden(f *arithFacts) {
	targets := map[string]bool{}
	for _, t := range f.namerefs {
		targets[t] = true
	}
	for name := range bashInts {
		if len(f.values[name]) > 0 || targets[name] {
			if f.ints == nil {
				f.ints = map[string]bool{}
			}
			f.ints[name] = true
		}
	}
	for ref := range f.namerefs {
		for _, v := range f.loops[ref] {
			if !v.known {
				a.opaque("a for loop gives the name reference %s a target computed when it runs", ref)
				break
			}
			a.nameText(v.text)
		}
	}
}
