package permission

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// writes records the files a command writes by its arguments, as
// redirects that write (Analysis.Redirects): tee's files, dd's of=, sed's
// with -i, the destination (and a copy's name in it) of cp, mv, install
// and ln, mv's sources, truncate's files. more reports that the command is
// given more arguments when it runs (xargs): what it writes is then named
// at run time too. A {} (find -exec's file) is named at run time.
func (a *Analysis) writes(prog string, args []*syntax.Word, more bool) {
	var files []*syntax.Word // written
	switch prog {
	case "tee":
		files = operands(args, "", nil)
	case "truncate":
		files = operands(args, "sro", []string{"--size", "--reference"})
	case "dd":
		for _, w := range args {
			v, ok := lit(w)
			switch {
			case !ok && strings.HasPrefix(rawLit(w), "of="):
				a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
			case ok && strings.HasPrefix(v, "of="):
				a.writeTarget(w, v[len("of="):])
			}
		}
	case "sed":
		files = sedInPlace(args)
		a.sed(args)
	case "cp", "mv", "install", "ln":
		a.copies(prog, args)
	default:
		if !a.writesMore(prog, args) {
			return
		}
	}
	for _, w := range files {
		v, _ := lit(w)
		a.writeTarget(w, v)
	}
	if more {
		a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
	}
}

// writeTarget records a file written, named by w (v its literal value).
func (a *Analysis) writeTarget(w *syntax.Word, v string) {
	if _, ok := lit(w); !ok || hasMeta(w) || strings.Contains(v, "{}") || v == "" {
		a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
		return
	}
	a.Redirects = append(a.Redirects, Redirect{Path: v, Write: true})
}

// rawLit is the literal text a word starts with.
func rawLit(w *syntax.Word) string {
	if l, ok := w.Parts[0].(*syntax.Lit); ok {
		return l.Value
	}
	return ""
}

// operands returns a command's words that are not options, as getopt
// reads them (options may follow operands, until --): short options in
// valued and the long ones in long take the next word as their value
// unless it is attached.
func operands(args []*syntax.Word, valued string, long []string) []*syntax.Word {
	var out []*syntax.Word
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case ok && v == "--":
			return append(out, args[i+1:]...)
		case !ok || !strings.HasPrefix(v, "-") || v == "-":
			out = append(out, args[i])
		case strings.HasPrefix(v, "--"):
			for _, l := range long {
				if v == l {
					i++
				}
			}
		default:
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(valued, v[j]) >= 0 {
					if j+1 == len(v) {
						i++
					}
					break
				}
			}
		}
	}
	return out
}

// sedInPlace returns the files sed edits in place (-i, --in-place), none
// without: its operands after the script, all of them when the script is
// given by -e or -f.
func sedInPlace(args []*syntax.Word) []*syntax.Word {
	inPlace, scripted := false, false
	var ops []*syntax.Word
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case ok && v == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case !ok || !strings.HasPrefix(v, "-") || v == "-":
			ops = append(ops, args[i])
		case strings.HasPrefix(v, "--"):
			name, _, attached := strings.Cut(v, "=")
			switch name {
			case "--in-place":
				inPlace = true
			case "--expression", "--file":
				scripted = true
				if !attached {
					i++
				}
			case "--line-length":
				if !attached {
					i++
				}
			}
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'i' { // -i[SUFFIX]: the rest of the word is its suffix
					inPlace = true
					break
				}
				if c == 'e' || c == 'f' || c == 'l' {
					scripted = scripted || c != 'l'
					if j+1 == len(v) {
						i++
					}
					break
				}
			}
		}
	}
	if !inPlace {
		return nil
	}
	if !scripted && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}

// copies records what cp, mv, install and ln write: the destination (the
// last operand, or -t's folder) and, as the destination may be a folder,
// each source's name in it; mv also changes its sources.
func (a *Analysis) copies(prog string, args []*syntax.Word) {
	valued := "tS"
	long := []string{"--target-directory", "--suffix"}
	if prog == "install" {
		valued += "mog"
		long = append(long, "--mode", "--owner", "--group")
	}
	var dir *syntax.Word // -t DIR
	noDir := false       // -T: the destination is a file
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		if !ok || !strings.HasPrefix(v, "-") || strings.HasPrefix(v, "--") {
			switch {
			case ok && v == "--target-directory" && i+1 < len(args):
				dir = args[i+1]
			case ok && strings.HasPrefix(v, "--target-directory="):
				dir = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: strings.TrimPrefix(v, "--target-directory=")}}}
			case ok && v == "--no-target-directory":
				noDir = true
			}
			if ok && v == "--" {
				break
			}
			continue
		}
		if j := strings.IndexByte(v, 't'); j > 0 {
			if j+1 < len(v) {
				dir = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v[j+1:]}}}
			} else if i+1 < len(args) {
				dir = args[i+1]
			}
		}
		noDir = noDir || strings.IndexByte(v, 'T') > 0
	}
	ops := operands(args, valued, long)
	sources := ops
	dest := dir
	switch {
	case dest != nil:
	case len(ops) == 0:
		return
	case len(ops) == 1 && prog == "ln": // ln TARGET: a link of its name here
		v, _ := lit(ops[0])
		a.writeTarget(ops[0], path.Base(v))
		return
	default:
		dest, sources = ops[len(ops)-1], ops[:len(ops)-1]
	}
	dv, _ := lit(dest)
	a.writeTarget(dest, dv)
	for _, src := range sources {
		sv, ok := lit(src)
		if prog == "mv" {
			a.writeTarget(src, sv)
		}
		if noDir {
			continue
		}
		if _, destOK := lit(dest); !ok || !destOK || hasMeta(src) || hasMeta(dest) {
			a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
			continue
		}
		a.Redirects = append(a.Redirects, Redirect{Path: path.Join(dv, path.Base(sv)), Write: true})
	}
}
