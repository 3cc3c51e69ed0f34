package permission

import (
	"strings"
)

// AnalyzeCmd lists what a cmd.exe script runs (the bash tool's language
// on Windows without bash), by program names: the script is split at
// &, &&, || and |, each part's first word is its program (the base name,
// case folded, without .exe, .com, .bat or .cmd), and its redirections
// are files it reads or writes (NUL writes nothing). powershell and pwsh
// with -Command, and cmd /c, are read inside (psScript, and this again). Whatever this reading cannot see through — variables (%x%,
// !x!), escapes (^), blocks, call, start, for, if, a PowerShell script
// given otherwise than by -Command — is Opaque: it asks, and is refused
// where a deny rule could apply.
func AnalyzeCmd(src string) Analysis {
	a := Analysis{renamed: map[string]string{}, facts: &arithFacts{}, expansions: new(int)}
	a.cmdScript(src, 0)
	return a
}

func (a *Analysis) cmdScript(src string, depth int) {
	if depth > maxNesting {
		a.opaqueText(src, "shell strings nested more than %d deep", maxNesting)
		return
	}
	if i := strings.IndexAny(src, "%!^()\n\r`"); i >= 0 {
		a.opaqueText(src, "the command uses cmd syntax this reading cannot follow (%q)", src[i:i+1])
		return
	}
	parts, ok := splitOutsideQuotes(src, []string{"&&", "||", "&", "|"}, `"`)
	if !ok {
		a.opaqueText(src, "the command cannot be parsed (an unclosed quote)")
		return
	}
	for _, part := range parts {
		words, redirs, ok := winWords(part, `"`, cmdSeparators)
		if !ok {
			a.opaque("the command cannot be parsed (a redirection without a file)")
			continue
		}
		a.Redirects = append(a.Redirects, redirs...)
		if len(words) == 0 {
			continue
		}
		s := winSimple(strings.TrimSpace(part), words)
		a.cmdFiles(s)
		switch s.Program {
		case "call", "start", "for", "if", "set", "setlocal", "goto":
			a.opaque("%s runs or changes what cmd runs later", s.Program)
		case "cd", "chdir", "pushd", "popd":
			a.ChangesDir = true
		case "cmd":
			if code, ok := cmdCode(s.Args); ok {
				in := a.nested()
				in.cmdScript(code, depth+1)
				a.take(&in)
			} else {
				a.opaque("cmd without /c reads its commands from its input")
			}
		case "powershell", "pwsh":
			if code, ok := psCode(s.Args); ok {
				in := a.nested()
				in.psScript(code, depth+1)
				a.take(&in)
			} else {
				a.opaque("%s is given its script otherwise than by -Command", s.Program)
			}
		}
		a.Commands = append(a.Commands, s)
	}
}

// take makes in's commands a's own, each needing its allowance (unlike
// absorb's, which a runner may run): cmd /c and powershell -Command run
// exactly the code they are given.
func (a *Analysis) take(in *Analysis) {
	a.Commands = append(a.Commands, in.Commands...)
	in.Commands = nil
	a.absorb(in)
}

// psWriters are the cmdlets that write the file their -FilePath, -Path
// or -LiteralPath names, or their first positional argument.
var psWriters = map[string]bool{"out-file": true, "set-content": true, "add-content": true, "tee-object": true}

// psScript reads what a PowerShell script runs, by the names of its
// commands (case folded, without .exe): statements split at ;, |, &&, ||
// and line ends, the first word of each; redirections (>, >>, 2>, *>) and
// the files Out-File, Set-Content, Add-Content and Tee-Object write are
// writes. Variables, subexpressions, script blocks, the call and dot
// operators, escapes and Invoke-Expression are Opaque.
func (a *Analysis) psScript(src string, depth int) {
	if depth > maxNesting {
		a.opaqueText(src, "shell strings nested more than %d deep", maxNesting)
		return
	}
	if i := strings.IndexAny(src, "$@{}`()[]"); i >= 0 {
		a.opaqueText(src, "the PowerShell code uses syntax this reading cannot follow (%q)", src[i:i+1])
		return
	}
	parts, ok := splitOutsideQuotes(src, []string{"&&", "||", ";", "|", "\n", "&"}, `"'`)
	if !ok {
		a.opaqueText(src, "the PowerShell code cannot be parsed (an unclosed quote)")
		return
	}
	for _, part := range parts {
		if strings.TrimSpace(part) == "&" {
			a.opaque("the call operator & runs a command named by a value")
			continue
		}
		words, redirs, ok := winWords(part, `"'`, "")
		if !ok {
			a.opaque("the PowerShell code cannot be parsed (a redirection without a file)")
			continue
		}
		a.Redirects = append(a.Redirects, redirs...)
		if len(words) == 0 {
			continue
		}
		if words[0] == "." {
			a.opaque("dot-sourcing runs a script's code in the session")
			continue
		}
		s := winSimple(strings.TrimSpace(part), psParams(words))
		a.psFiles(s)
		switch {
		case s.Program == "iex" || s.Program == "invoke-expression" || s.Program == "invoke-command" || s.Program == "icm":
			a.opaque("%s runs code given as a value", s.Program)
		case s.Program == "set-location" || s.Program == "cd" || s.Program == "sl" || s.Program == "push-location" || s.Program == "pop-location":
			a.ChangesDir = true
		case psWriters[s.Program]:
			if f := psTarget(s.Args); f != "" {
				a.Redirects = append(a.Redirects, Redirect{Path: f, Write: true})
			} else {
				a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
			}
		case s.Program == "powershell" || s.Program == "pwsh":
			if code, ok := psCode(s.Args); ok {
				in := a.nested()
				in.psScript(code, depth+1)
				a.take(&in)
			} else {
				a.opaque("%s is given its script otherwise than by -Command", s.Program)
			}
		}
		a.Commands = append(a.Commands, s)
	}
}

// splitOutsideQuotes splits src at each separator outside quotes
// (longest first, as listed); a lone "&" separator is kept as a part of
// its own when "&" is listed after "&&" for PowerShell's call operator.
func splitOutsideQuotes(src string, seps []string, quotes string) ([]string, bool) {
	var parts []string
	var q byte
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if q != 0 {
			if c == q {
				q = 0
			}
			continue
		}
		if strings.IndexByte(quotes, c) >= 0 {
			q = c
			continue
		}
		if c == '&' && i > 0 && (src[i-1] == '>' || src[i-1] == '<') {
			continue // 2>&1 duplicates a stream
		}
		for _, sep := range seps {
			if strings.HasPrefix(src[i:], sep) {
				if sep == "&" && strings.Contains(quotes, "'") { // PowerShell: & is the call operator
					parts = append(parts, src[start:i], "&")
				} else {
					parts = append(parts, src[start:i])
				}
				i += len(sep) - 1
				start = i + 1
				break
			}
		}
	}
	if q != 0 {
		return nil, false
	}
	return append(parts, src[start:]), true
}

// winWords splits a command into its words (quotes removed) and its
// redirections: [n]>, [n]>>, *>, <, n>&m (a duplication, no file).
// Outside quotes, the bytes of seps separate words as a space does in
// the program's name and in the arguments of a program cmdSplits names
// (cmd's "," ";" "=": type,x is type x).
func winWords(part, quotes, seps string) (words []string, redirs []Redirect, ok bool) {
	var cur strings.Builder
	inWord, pending := false, 0 // pending: 1 a write redirection waits for its file, 2 a read
	flush := func() {
		if !inWord {
			return
		}
		w := cur.String()
		cur.Reset()
		inWord = false
		switch pending {
		case 0:
			words = append(words, w)
		default:
			if !strings.EqualFold(w, "nul") && !strings.EqualFold(w, "$null") {
				redirs = append(redirs, Redirect{Path: w, Write: pending == 1})
			}
			pending = 0
		}
	}
	var q byte
	for i := 0; i < len(part); i++ {
		c := part[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else {
				cur.WriteByte(c)
			}
		case strings.IndexByte(quotes, c) >= 0:
			q, inWord = c, true
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte(seps, c) >= 0 && (len(words) == 0 || cmdSplits[strings.ToLower(words[0])]):
			flush()
		case c == '>' || c == '<':
			// a digit or * just before is the stream redirected
			if inWord && (cur.Len() == 1 && (cur.String() == "*" || cur.String()[0] >= '0' && cur.String()[0] <= '9')) {
				cur.Reset()
				inWord = false
			}
			flush()
			if pending != 0 {
				return nil, nil, false
			}
			pending = 2
			if c == '>' {
				pending = 1
				if i+1 < len(part) && part[i+1] == '>' {
					i++
				}
				if i+1 < len(part) && part[i+1] == '&' { // 2>&1
					i += 2
					for i < len(part) && part[i] >= '0' && part[i] <= '9' {
						i++
					}
					i--
					pending = 0
				}
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, redirs, pending == 0
}

// winSimple is a simple command of words, its program named as rules name
// it: the base name, case folded, without an executable's extension.
func winSimple(text string, words []string) Simple {
	s := Simple{Text: text, Args: words[1:], dyn: make([]bool, len(words)-1)}
	prog := strings.ReplaceAll(words[0], `\`, "/")
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		s.Pathed, s.Dir = true, prog[:max(i, 1)]
		prog = prog[i+1:]
	} else if len(prog) > 2 && prog[1] == ':' {
		s.Pathed, s.Dir = true, prog[:2]
		prog = prog[2:]
	}
	prog = strings.ToLower(prog)
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
		prog = strings.TrimSuffix(prog, ext)
	}
	s.Program = prog
	return s
}

// cmdCode is the script of cmd's arguments after /c or /k.
func cmdCode(args []string) (string, bool) {
	for i, a := range args {
		if strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") {
			return strings.Join(args[i+1:], " "), i+1 < len(args)
		}
	}
	return "", false
}

// psCode is the script of powershell's arguments after -Command (any
// prefix of it, as PowerShell takes: -c, -com); other ways of giving a
// script (-File, -EncodedCommand, its input) are not read.
func psCode(args []string) (string, bool) {
	for i, a := range args {
		l := strings.ToLower(a)
		switch {
		case len(l) >= 2 && l[0] == '-' && strings.HasPrefix("-command", l):
			return strings.Join(args[i+1:], " "), i+1 < len(args)
		case len(l) >= 2 && l[0] == '-' && (strings.HasPrefix("-file", l) || strings.HasPrefix("-encodedcommand", l) || l == "-e" || l == "-ec"):
			return "", false
		}
	}
	return "", false
}

// psTarget is the file a writing cmdlet's arguments name: -FilePath,
// -Path or -LiteralPath's value (any prefix), else the first positional
// argument; "" when none.
func psTarget(args []string) string {
	for i := 0; i < len(args); i++ {
		l := strings.ToLower(args[i])
		if len(l) < 2 || l[0] != '-' {
			return args[i]
		}
		if (strings.HasPrefix("-filepath", l) || strings.HasPrefix("-path", l) || strings.HasPrefix("-literalpath", l)) && i+1 < len(args) {
			return args[i+1]
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix("-append", l) && !strings.HasPrefix("-force", l) && !strings.HasPrefix("-noclobber", l) {
			i++ // another option's value
		}
	}
	return ""
}

// opaqueText marks src opaque for the reason given and keeps its words
// loosely, so that deny rules can still see the programs it may name.
func (a *Analysis) opaqueText(src, format string, args ...any) {
	a.opaque(format, args...)
	a.Words = append(a.Words, looseWords(src)...)
}
