package permission

// Programs that write the files their options or operands name, beyond
// writers.go's (options from each program's --help on Debian 12, read
// 2026-12-05): shuf -o, iconv -o, openssl's -out and -keyout, script's
// typescript, strip and objcopy, shred, perl -i, judged as edits of their
// files; and the metadata edits of touch, chmod, chown and chgrp, which
// edit and write deny rules refuse but which ask nothing of their own
// (Redirect.Meta). vim and
// ex given commands (-c, +cmd, --cmd, -S, -s, -e) run code: opaque.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// writesOwn is writes for the programs of this file; it reports whether
// prog is one of them.
func (a *Analysis) writesOwn(prog string, args []*syntax.Word) bool {
	switch prog {
	case "shuf":
		a.optionTargets(args, "o", []string{"--output"}, "ino", []string{"--head-count", "--input-range", "--output", "--random-source"}, false)
	case "iconv":
		a.optionTargets(args, "o", []string{"--output"}, "fto", []string{"--from-code", "--to-code", "--output"}, false)
	case "openssl":
		for i := 0; i+1 < len(args); i++ {
			if v, _ := lit(args[i]); v == "-out" || v == "-keyout" {
				t, _ := lit(args[i+1])
				a.target(args[i+1], t)
				i++
			}
		}
	case "script":
		a.script(args)
	case "strip":
		if !a.optionTargets(args, "o", nil, "FIOKNRo", []string{"--target", "--input-target", "--output-target", "--keep-symbol", "--strip-symbol", "--remove-section", "--remove-relocations"}, false) {
			a.operandTargets(operands(args, "FIOKNR", []string{"--target", "--input-target", "--output-target", "--keep-symbol", "--strip-symbol", "--remove-section", "--remove-relocations"}))
		}
	case "objcopy":
		// objcopy IN [OUT]: OUT, or IN in place; many of its options
		// take values, so every operand may be the one written.
		a.operandTargets(operands(args, "FIOBjKNGLWRb", nil))
		a.runTimeWrite()
	case "shred":
		a.operandTargets(operands(args, "ns", []string{"--iterations", "--size", "--random-source"}))
	case "touch":
		a.metaTargets(operands(args, "rdt", []string{"--reference", "--date", "--time"}), false)
	case "chmod", "chown", "chgrp":
		if ops := operands(args, "", []string{"--reference", "--from"}); len(ops) > 0 {
			if !hasPrefixWord(args, "--reference") {
				ops = ops[1:] // after the mode, owner or group
			}
			a.metaTargets(ops, hasWord(args, "-R", "--recursive"))
		}
	case "perl":
		a.perl(args)
	case "vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim", "rvim":
		for _, w := range args {
			v, ok := lit(w)
			if !ok || strings.HasPrefix(v, "+") || v == "--cmd" || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "cSse")) {
				a.opaque("%s is given commands, which cannot be checked", prog)
				break
			}
		}
		a.runTimeWrite()
	default:
		return false
	}
	return true
}

// operandTargets records each of ws as a file written.
func (a *Analysis) operandTargets(ws []*syntax.Word) {
	for _, w := range ws {
		v, _ := lit(w)
		a.writeTarget(w, v)
	}
}

// metaTargets records each of ws as a file whose metadata is written
// (Redirect.Meta); tree: and everything below it, named at run time.
func (a *Analysis) metaTargets(ws []*syntax.Word, tree bool) {
	for _, w := range ws {
		v, ok := lit(w)
		if !ok || hasMeta(w) || strings.Contains(v, "{}") || v == "" {
			a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true, Meta: true})
			continue
		}
		a.Redirects = append(a.Redirects, Redirect{Path: v, Write: true, Meta: true})
	}
	if tree {
		a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true, Meta: true})
	}
}

func hasPrefixWord(args []*syntax.Word, prefix string) bool {
	for _, w := range args {
		if v, ok := lit(w); ok && strings.HasPrefix(v, prefix) {
			return true
		}
	}
	return false
}

// script (util-linux 2.38) writes its typescript, the file operand or
// ./typescript, and its log files (its -c command: runners.go).
func (a *Analysis) script(args []*syntax.Word) {
	valued, long := "IOBTmEoc", []string{"--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--echo", "--output-limit", "--command"}
	a.optionTargets(args, "IOBT", []string{"--log-in", "--log-out", "--log-io", "--log-timing"}, valued, long, false)
	if ops := operands(args, valued, long); len(ops) > 0 {
		a.operandTargets(ops[:1])
	} else {
		a.writeTarget(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "typescript"}}}, "typescript")
	}
	if hasPrefixWord(args, "-t") || hasPrefixWord(args, "--timing") {
		a.runTimeWrite()
	}
}

// perl sees -i (in place, in a cluster too: -pi, -pi.bak): the files it
// is given are written. Its code (-e, or the script file) is an
// interpreter's, which the analysis does not read.
func (a *Analysis) perl(args []*syntax.Word) {
	inPlace, code := false, false
	var files []*syntax.Word
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		if !ok || !strings.HasPrefix(v, "-") || v == "-" {
			files = append(files, args[i])
			continue
		}
		if v == "--" {
			files = append(files, args[i+1:]...)
			break
		}
	cluster:
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'i':
				inPlace = true
				break cluster // the rest is the backup's extension
			case 'e', 'E':
				code = true
				if j+1 == len(v) {
					i++
				}
				break cluster
			case 'I', 'M', 'm', 'x', 'l', '0', 'C', 'd', 'D':
				if j+1 == len(v) && strings.IndexByte("IMm", v[j]) >= 0 {
					i++
				}
				break cluster
			}
		}
	}
	if !inPlace {
		return
	}
	if !code && len(files) > 0 {
		files = files[1:] // the script
	}
	a.operandTargets(files)
}
