package permission

// sed's and awk's programs, read for what they write and run: sed's w
// and W commands and s///w flag write a file, its e command and s///e
// flag run one (GNU sed manual, "sed scripts", read 2026-12-05); an awk
// program printing with > writes a file, and system() or a pipe runs a
// command. A program given in a file, or computed, is not seen: it may
// do all of it.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// sed judges sed's scripts: -e and --expression, or else the first
// operand; -f and --file name a script not seen.
func (a *Analysis) sed(args []*syntax.Word) {
	var scripts []string
	given, unseen := false, false
	var ops []*syntax.Word
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		next := func() {
			given = true
			if i+1 >= len(args) {
				return
			}
			i++
			s, ok := lit(args[i])
			if !ok {
				unseen = true
			}
			scripts = append(scripts, s)
		}
		switch {
		case !ok && !given && len(ops) == 0:
			ops = append(ops, args[i])
		case !ok || !strings.HasPrefix(v, "-") || v == "-":
			ops = append(ops, args[i])
		case v == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case v == "-e" || v == "--expression":
			next()
		case strings.HasPrefix(v, "--expression="):
			given = true
			scripts = append(scripts, v[len("--expression="):])
		case v == "-f" || v == "--file" || strings.HasPrefix(v, "--file="):
			given, unseen = true, true
			if v != "--file" && v != "-f" {
				break
			}
			i++
		case strings.HasPrefix(v, "--"):
			if v == "--line-length" {
				i++
			}
		default:
			for j := 1; j < len(v); j++ {
				if c := v[j]; c == 'e' || c == 'f' {
					given = true
					unseen = unseen || c == 'f'
					if j+1 < len(v) {
						scripts = append(scripts, v[j+1:])
					} else if c == 'e' {
						next()
					} else {
						i++
					}
					break
				} else if c == 'l' || c == 'i' {
					if c == 'l' && j+1 == len(v) {
						i++
					}
					break
				}
			}
		}
	}
	if !given && len(ops) > 0 {
		s, ok := lit(ops[0])
		unseen = unseen || !ok
		scripts = append(scripts, s)
	}
	writes, runs := unseen, unseen
	for _, s := range scripts {
		w, r, ok := sedScript(s)
		writes, runs = writes || w || !ok, runs || r || !ok
	}
	if writes {
		a.runTimeWrite()
	}
	if runs {
		a.opaque("sed runs a command its script names (e), or a script that is not seen")
	}
}

// sedScript reads a sed script for the commands and flags that write a
// file (w, W) or run a command (e); ok is false for what it cannot read.
func sedScript(s string) (writes, runs, ok bool) {
	i := 0
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
	}
	// delimited skips a delimited part ending at d.
	delimited := func(d byte) bool {
		for i < len(s) && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			if i < len(s) && s[i] == '\n' && d != '\n' {
				return false
			}
			i++
		}
		if i >= len(s) {
			return false
		}
		i++
		return true
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '!' || c == ',' || c == '$' || c == '~' || c == '+' || c >= '0' && c <= '9' || c == '}' || c == '{':
			i++
			continue
		case c == '/':
			i++
			if !delimited('/') {
				return true, true, false
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
			continue
		case c == '\\' && i+1 < len(s):
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return true, true, false
			}
			continue
		}
		i++
		switch c {
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'l', 'L', 'q', 'Q':
		case ':', 'b', 't', 'T', 'v', '#', 'a', 'i', 'c', 'r', 'R':
			toEOL()
		case 'w', 'W':
			writes = true
			toEOL()
		case 'e':
			runs = true
			toEOL()
		case 'y', 's':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return true, true, false
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return true, true, false
			}
			if c == 'y' {
				continue
			}
			for i < len(s) && strings.IndexByte("gpiImMe0123456789w", s[i]) >= 0 {
				switch s[i] {
				case 'e':
					runs = true
				case 'w':
					writes = true
					toEOL()
					continue
				}
				i++
			}
		default:
			return true, true, false
		}
	}
	return writes, runs, true
}

// awk judges an awk program: > in it may print to a file; system(, a
// pipe (not ||) and getline from a command run commands. A program from
// a file (-f), or an extension loaded (-l, -i, @load), is not seen.
func (a *Analysis) awk(prog string, args []*syntax.Word) {
	var progs []string
	given, unseen := false, false
	var ops []*syntax.Word
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case !ok || !strings.HasPrefix(v, "-") || v == "-":
			ops = append(ops, args[i])
			if !given {
				i = len(args) // the rest are files and assignments
			}
		case v == "--":
			if i+1 < len(args) {
				ops = append(ops, args[i+1])
			}
			i = len(args)
		case v == "-f" || v == "--file" || v == "-i" || v == "--include" || v == "-l" || v == "--load" || v == "-E" || v == "--exec":
			given, unseen = true, true
			i++
		case v == "-e" || v == "--source":
			given = true
			if i+1 < len(args) {
				i++
				s, ok := lit(args[i])
				unseen = unseen || !ok
				progs = append(progs, s)
			}
		case v == "-F" || v == "-v" || v == "--assign" || v == "--field-separator":
			i++
		case strings.HasPrefix(v, "-f") || strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "-l") || strings.HasPrefix(v, "-i") || strings.HasPrefix(v, "-E"):
			given, unseen = true, true
		}
	}
	if !given && len(ops) > 0 {
		s, ok := lit(ops[0])
		unseen = unseen || !ok
		progs = append(progs, s)
	}
	writes, runs := unseen, unseen
	for _, p := range progs {
		writes = writes || strings.Contains(p, ">")
		bare := strings.ReplaceAll(p, "||", "")
		runs = runs || strings.Contains(bare, "|") || strings.Contains(p, "system") || strings.Contains(p, "@load")
	}
	if writes {
		a.runTimeWrite()
	}
	if runs {
		a.opaque("%s runs commands its program names (system, a pipe), or a program that is not seen", prog)
	}
}
