package permission

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxNesting bounds how deep bash -c strings are parsed inside each other.
const maxNesting = 8

// Simple is one simple command of a shell script, normalized for matching:
// leading assignments stripped, the program reduced to its base name,
// quoting and backslashes removed.
type Simple struct {
	Program string   // base name of the program; "" when Dynamic
	Args    []string // the words after the program; a dynamic word is ""
	dyn     []bool   // dyn[i]: Args[i] is not a literal ($x, $(…), globs in the program)
	Dynamic bool     // the program itself is built at run time ($cmd, globs, braces)
	// Pathed reports that the program was written with a directory
	// (/bin/rm, ./rm); Dir is that directory.
	Pathed bool
	Dir    string
	// Transparent marks a wrapper (nohup, env, timeout, xargs, …) whose
	// inner command is judged on its own: deny rules see the wrapper, allow
	// decisions do not need it covered.
	Transparent bool
	// MoreArgs reports that more arguments are added at run time (xargs,
	// find -exec … +), so an exact rule can never be sure to match.
	MoreArgs bool
	Text     string // as written, for people
}

// Words returns the program and its arguments.
func (s Simple) Words() []string { return append([]string{s.Program}, s.Args...) }

// Redirect is a file a script redirects to or from, or one a command
// writes by its arguments (tee, dd of=, sed -i, cp, mv, …: writes.go).
type Redirect struct {
	Path    string // as written (unquoted); "" when Dynamic
	Dynamic bool
	Write   bool
	// Meta marks a write of a file's metadata or times (touch, chmod,
	// chown, chgrp): edit and write deny rules refuse it as a write; it
	// asks nothing of its own, as the command asks.
	Meta bool
}

// Analysis is what a shell script runs, as far as it can be seen without
// running it.
type Analysis struct {
	Commands  []Simple
	Redirects []Redirect
	// Opaque lists the reasons some code of the script cannot be seen:
	// eval, a program named by a variable, a shell reading commands from
	// its input or a file, source, a variable that makes later commands
	// run other code (PATH=…, PS4=…, BASH_ENV=…), a parse error. Opaque
	// scripts are never allowed without asking, and are refused where a
	// deny rule could apply.
	Opaque []string
	// Danger lists reasons the script can never be allowed without
	// asking even when every command is covered (eval of a literal
	// string, whose code is seen).
	Danger []string
	// ChangesDir reports a cd/pushd/popd: relative paths after it cannot
	// be placed.
	ChangesDir bool
	// Words are every literal-looking word of an unparsable script, for
	// deny rules that could match it.
	Words []string
	// ParseError is the parser's complaint about an unparsable script.
	ParseError error
	// Maybe are commands a runner (strace, flock, su -c, uv run, …) runs,
	// and words that may start them where its options cannot be told
	// apart with certainty: deny and ask rules see them; none needs an
	// allowance beyond the runner's own.
	Maybe []Simple
	// renamed maps a name an alias or hash -p defined in the script to
	// the text it stands for where it is used; shared with the analyses
	// of nested code.
	renamed map[string]string
	// facts are what the script's arithmetic evaluates, judged when the
	// whole script has been read (arith.go); shared likewise.
	facts *arithFacts
	// stdin is the input of the statement being read when the script
	// gives it literally (sourced.go).
	stdin *stdinText
	// fds are the files the script's redirections open its descriptors
	// on (fdpaths.go); shared likewise.
	fds *fdFacts
	// replace is the text xargs -I or find -exec replaces with words it
	// reads when it runs, while their command is read: code holding it,
	// or a program, is computed.
	replace string
	// expansions counts the uses of renamed names expanded (later.go);
	// shared likewise.
	expansions *int
}

// Analyze parses a bash script and lists every simple command it runs —
// in pipelines, lists, subshells, $(…), backticks, process substitutions,
// function bodies, and the strings of bash -c, eval, env -S and find -exec.
func Analyze(src string) Analysis {
	a := Analysis{renamed: map[string]string{}, facts: &arithFacts{}, expansions: new(int), Commands: make([]Simple, 0, 8)} // room for most scripts' commands: growing copies them all
	a.parse(src, 0)
	a.judgeArith()
	a.placeShellPaths()
	return a
}

// nested is an analysis of code inside a's script: it sees the names a's
// script defined.
func (a *Analysis) nested() Analysis {
	return Analysis{renamed: a.renamed, facts: a.facts, fds: a.fdInfo(), replace: a.replace, expansions: a.expansions}
}

// absorb takes in's commands as ones a's script may run (Maybe), and
// what in could not see, or found dangerous, as a's own.
func (a *Analysis) absorb(in *Analysis) {
	a.Maybe = append(append(a.Maybe, in.Commands...), in.Maybe...)
	a.Redirects = append(a.Redirects, in.Redirects...)
	a.Opaque = append(a.Opaque, in.Opaque...)
	a.Danger = append(a.Danger, in.Danger...)
	a.Words = append(a.Words, in.Words...)
	a.ChangesDir = a.ChangesDir || in.ChangesDir
	if a.ParseError == nil {
		a.ParseError = in.ParseError
	}
}

// newSimple is words as a simple command; literal is false when its
// program is computed when it runs.
func newSimple(src string, words []*syntax.Word) (s Simple, prog string, literal bool) {
	s.Text = raw(src, words)
	for _, w := range words[1:] {
		v, ok := lit(w)
		s.Args = append(s.Args, v)
		s.dyn = append(s.dyn, !ok)
	}
	prog, ok := lit(words[0])
	if !ok || hasMeta(words[0]) || prog == "" {
		return s, "", false
	}
	s.setProgram(prog)
	return s, prog, true
}

// setProgram names s's program as written (/bin/rm, rm).
func (s *Simple) setProgram(prog string) {
	if strings.Contains(prog, "/") {
		s.Pathed, s.Dir = true, path.Dir(prog)
	}
	s.Program = path.Base(prog)
}

func (a *Analysis) opaque(format string, args ...any) {
	a.Opaque = append(a.Opaque, fmt.Sprintf(format, args...))
}

func (a *Analysis) parse(src string, depth int) {
	if depth > maxNesting {
		a.opaque("shell strings nested more than %d deep", maxNesting)
		a.Words = append(a.Words, looseWords(src)...)
		return
	}
	if depth > 0 && a.replace != "" && strings.Contains(src, a.replace) {
		a.opaque("code holds %s, which is replaced by words read when it runs", a.replace)
	}
	parser := parsers.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(src), "")
	parsers.Put(parser) // the tree holds nothing of the parser's: Parse starts afresh
	if err != nil {
		if a.ParseError == nil {
			a.ParseError = err
		}
		a.opaque("the command cannot be parsed (%v)", err)
		a.Words = append(a.Words, looseWords(src)...)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		a.arithNode(n)
		switch n := n.(type) {
		case *syntax.TimeClause: // bash's time keyword takes -- as the end of its options
			if n.Stmt != nil {
				if c, ok := n.Stmt.Cmd.(*syntax.CallExpr); ok && len(c.Assigns) == 0 && len(c.Args) > 0 {
					if v, ok := lit(c.Args[0]); ok && v == "--" {
						c.Args = c.Args[1:]
					}
				}
			}
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				a.redirect(r)
			}
			a.stdin = stdinOf(n)
		case *syntax.CallExpr:
			for _, as := range n.Assigns {
				a.assign(as, depth)
			}
			if len(n.Args) > 0 {
				a.call(src, n.Args, depth)
			}
			a.stdin = nil
		case *syntax.DeclClause:
			a.decl(n, depth)
		case *syntax.ParamExp: // ${name:=value} assigns name
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				a.sets(n.Param.Value, "${"+n.Param.Value+":=…}")
			}
		}
		return true
	})
}

// parsers are bash parsers for parse to reuse (a new one is a 1 KiB
// read buffer and more).
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// dangerousVars change what later commands run or load.
var dangerousVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "IFS": true, "PS4": true, "PROMPT_COMMAND": true,
	"SHELLOPTS": true, "BASHOPTS": true, "CDPATH": true, "PAGER": true, "MANPAGER": true, "GIT_PAGER": true,
	"EDITOR": true, "VISUAL": true, "GIT_EDITOR": true, "GIT_SSH": true, "GIT_SSH_COMMAND": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_EXEC_PATH": true,
	"NODE_OPTIONS": true, "PYTHONPATH": true, "PYTHONSTARTUP": true, "PERL5OPT": true, "PERL5LIB": true,
	"RUBYOPT": true, "LESSOPEN": true, "BROWSER": true, "HOME": true, "SHELL": true, "MAKEFLAGS": true,
	"RSYNC_RSH": true, "CVS_RSH": true, "SSH_ASKPASS_REQUIRE": true,
}

func dangerousVar(name string) bool {
	return dangerousVars[name] || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "BASH_FUNC_") ||
		strings.HasPrefix(strings.ToUpper(name), "NPM_CONFIG_")
}

func (a *Analysis) assign(as *syntax.Assign, depth int) {
	switch {
	case as.Name == nil:
	case laterArrays[as.Name.Value]:
		a.laterAssign(as, depth)
	case dangerousVar(as.Name.Value):
		a.runsLater(as.Name.Value, "")
	}
}

// decl sees declare, local, typeset, export and readonly: their
// assignments, and a name reference (-n) to a variable assign would flag,
// which makes its later assignments that variable's.
func (a *Analysis) decl(d *syntax.DeclClause, depth int) {
	nameref := false
	for _, as := range d.Args {
		if !as.Naked || as.Value == nil {
			continue
		}
		if v, ok := lit(as.Value); ok && strings.HasPrefix(v, "-") && strings.Contains(v, "n") {
			nameref = true
		}
	}
	for _, as := range d.Args {
		switch {
		case as.Naked:
		case nameref && as.Value != nil:
			if target, ok := lit(as.Value); ok {
				a.sets(target, "a name reference")
			} else {
				a.opaque("a name reference to a computed name")
			}
		default:
			a.assign(as, depth)
		}
	}
}

// writeOps are the redirections that create or change a file.
var writeOps = map[syntax.RedirOperator]bool{
	syntax.RdrOut: true, syntax.AppOut: true, syntax.RdrInOut: true, syntax.RdrClob: true,
	syntax.AppClob: true, syntax.RdrAll: true, syntax.RdrAllClob: true, syntax.AppAll: true, syntax.AppAllClob: true,
}

func (a *Analysis) redirect(r *syntax.Redirect) {
	if r.Word == nil {
		return
	}
	var write bool
	switch {
	case writeOps[r.Op]:
		write = true
	case r.Op == syntax.RdrIn:
	case r.Op == syntax.DplOut || r.Op == syntax.DplIn:
		// >&2 and <&- duplicate descriptors; >&file writes a file.
		if w, ok := lit(r.Word); ok && (w == "-" || isDigits(w)) {
			if w != "-" {
				a.dup(r, w)
			}
			return
		}
		write = r.Op == syntax.DplOut
	default:
		return // here-documents and here-strings
	}
	w, ok := lit(r.Word)
	rd := Redirect{Path: w, Write: write}
	if !ok || hasMeta(r.Word) {
		rd = Redirect{Dynamic: true, Write: write}
	}
	a.Redirects = append(a.Redirects, rd)
	a.opens(r, rd)
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// shells read commands from -c, a script file, or their input.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "rbash": true}

// call records one simple command (and, through wrappers, the commands it
// runs).
func (a *Analysis) call(src string, words []*syntax.Word, depth int) {
	more := false // a wrapper (xargs) gives the command more arguments
	defer func(replace string) { a.replace = replace }(a.replace)
	for len(words) > 0 {
		s, prog, ok := newSimple(src, words)
		if ok && a.replace != "" && strings.Contains(prog, a.replace) {
			ok = false
		}
		if !ok {
			s.Dynamic = true
			a.Commands = append(a.Commands, s)
			a.opaque("the program of %q is computed when it runs", s.Text)
			return
		}
		s.MoreArgs = more
		a.expand(src, prog, words, depth)
		if s.Program == "cd" || s.Program == "pushd" || s.Program == "popd" {
			a.ChangesDir = true
		}
		a.writes(s.Program, words[1:], more)
		inner, transparent := a.unwrap(src, &s, words, depth)
		s.Transparent = transparent
		more = more || s.MoreArgs
		a.Commands = append(a.Commands, s)
		if inner == nil {
			return
		}
		words = inner
	}
}

// raw returns the source text of words.
func raw(src string, words []*syntax.Word) string {
	start, end := words[0].Pos().Offset(), words[len(words)-1].End().Offset()
	if int(end) <= len(src) && start <= end {
		return src[start:end]
	}
	return ""
}

// looseWords splits unparsable text into words for deny matching: every
// run of characters that could be part of a program name or argument,
// with quotes and backslashes removed, plus each word's base name.
func looseWords(src string) []string {
	clean := strings.NewReplacer(`\`, "", `'`, "", `"`, "").Replace(src)
	fields := strings.FieldsFunc(clean, func(r rune) bool {
		return strings.ContainsRune(" \t\n\r;&|()<>`${}", r)
	})
	var out []string
	for _, f := range fields {
		out = append(out, f, path.Base(f))
	}
	return out
}
