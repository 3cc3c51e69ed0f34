package permission

// More programs that write files their arguments name (writes.go): GNU
// time -o, git's --output, find's -fprint family, sort -o, uniq's output
// operand, sed's w and W commands and s///w flag, curl -o and wget -O;
// and programs that write files named only when they run (patch, tar
// and unzip extracting, rsync, scp, split, csplit, the compressors in
// place, ed and ex, awk printing to a file), whose writes are named at
// run time. sed's e command and s///e flag, awk's system() and pipes,
// and git -c settings other than a few that run nothing, run code the
// script does not show: opaque.

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// writesMore is writes for the programs of this file; it reports whether
// prog is one of them.
func (a *Analysis) writesMore(prog string, args []*syntax.Word) bool {
	switch prog {
	case "time":
		a.optionTargets(args, "o", []string{"--output"}, "fo", []string{"--format", "--output"}, true)
	case "sort":
		a.optionTargets(args, "o", []string{"--output"}, "kSTot", []string{"--key", "--buffer-size", "--temporary-directory", "--output", "--field-separator", "--batch-size", "--compress-program", "--files0-from", "--parallel", "--random-source", "--sort"}, false)
	case "git":
		return a.git(args)
	case "find":
		for i, w := range args {
			v, _ := lit(w)
			switch v {
			case "-fprint", "-fprint0", "-fls", "-fprintf":
				if i+1 < len(args) {
					t, _ := lit(args[i+1])
					a.writeTarget(args[i+1], t)
				}
			}
		}
	case "uniq":
		if ops := operands(args, "fsw", []string{"--skip-fields", "--skip-chars", "--check-chars"}); len(ops) > 1 {
			v, _ := lit(ops[1])
			a.writeTarget(ops[1], v)
		}
	case "awk", "gawk", "mawk", "nawk":
		a.awk(prog, args)
	case "curl":
		a.curl(args)
	case "wget":
		if !a.optionTargets(args, "O", []string{"--output-document"}, "OoaPeUtTwQAR", []string{"--output-document", "--output-file", "--append-output"}, false) && !hasWord(args, "--spider") {
			a.runTimeWrite()
		}
	case "patch", "rsync", "scp", "split", "csplit", "ed", "ex", "red":
		a.runTimeWrite()
	case "tar":
		if !tarLists(args) {
			a.runTimeWrite()
		}
	case "unzip":
		if !hasWord(args, "-l", "-t", "-v", "-p", "-Z", "-z") {
			a.runTimeWrite()
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "lzma", "unlzma", "compress", "uncompress":
		if hasWord(args, "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test") {
			return true
		}
		for _, w := range operands(args, "S", []string{"--suffix"}) {
			v, _ := lit(w)
			a.writeTarget(w, v)
		}
		a.runTimeWrite() // and the file it makes beside each
	default:
		return a.writesOwn(prog, args)
	}
	return true
}

func (a *Analysis) runTimeWrite() {
	a.Redirects = append(a.Redirects, Redirect{Dynamic: true, Write: true})
}

func hasWord(args []*syntax.Word, words ...string) bool {
	for _, w := range args {
		if v, ok := lit(w); ok {
			for _, x := range words {
				if v == x {
					return true
				}
			}
		}
	}
	return false
}

// optionTargets records the files a program's output options name: the
// short ones of short and long ones of long, attached or as the next
// word, among options of which valued and valuedLong take values. stop
// ends the options at the first operand (the command of GNU time). It
// reports whether such an option was given.
func (a *Analysis) optionTargets(args []*syntax.Word, short string, long []string, valued string, valuedLong []string, stop bool) bool {
	found := false
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case !ok || !strings.HasPrefix(v, "-") || v == "-":
			if stop {
				return found
			}
		case v == "--":
			return found
		case strings.HasPrefix(v, "--"):
			name, value, attached := strings.Cut(v, "=")
			isOut := false
			for _, l := range long {
				isOut = isOut || (strings.HasPrefix(l, name) && len(name) > 3)
			}
			takes := false
			for _, l := range valuedLong {
				takes = takes || (strings.HasPrefix(l, name) && len(name) > 3)
			}
			switch {
			case isOut && attached:
				found = true
				a.target(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: value}}}, value)
			case isOut && i+1 < len(args):
				found = true
				i++
				t, _ := lit(args[i])
				a.target(args[i], t)
			case takes && !attached:
				i++
			}
		default:
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(valued, v[j]) < 0 {
					continue
				}
				isOut := strings.IndexByte(short, v[j]) >= 0
				switch {
				case j+1 < len(v) && isOut:
					found = true
					a.target(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v[j+1:]}}}, v[j+1:])
				case j+1 == len(v) && i+1 < len(args):
					i++
					if isOut {
						found = true
						t, _ := lit(args[i])
						a.target(args[i], t)
					}
				}
				break
			}
		}
	}
	return found
}

// target is writeTarget, where "-" is the standard output.
func (a *Analysis) target(w *syntax.Word, v string) {
	if v != "-" {
		a.writeTarget(w, v)
	}
}

// git sees git's writes (--output, --output-directory, archive's and
// format-patch's -o) and -c settings, which may run programs; it reports
// whether its subcommand is one that writes by such options.
func (a *Analysis) git(args []*syntax.Word) bool {
	sub := ""
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case !ok:
		case sub == "" && (v == "-c" || v == "--config-env") && i+1 < len(args):
			i++
			kv, ok := lit(args[i])
			if key, _, _ := strings.Cut(kv, "="); !ok || !harmlessGitKey(key) {
				a.opaque("git %s %s may make git run a program, which cannot be checked", v, kv)
			}
		case sub == "" && (strings.HasPrefix(v, "-c") && len(v) > 2 || strings.HasPrefix(v, "--config-env=")):
			kv := strings.TrimPrefix(strings.TrimPrefix(v, "--config-env="), "-c")
			if key, _, _ := strings.Cut(kv, "="); !harmlessGitKey(key) {
				a.opaque("git -c %s may make git run a program, which cannot be checked", kv)
			}
		case sub == "" && (v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace"):
			i++
		case sub == "" && !strings.HasPrefix(v, "-"):
			sub = v
		case sub == "config" && (v == "-f" || v == "--file") && i+1 < len(args):
			i++
			t, _ := lit(args[i])
			a.target(args[i], t)
		case sub == "config" && (strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "-f")):
			t := strings.TrimPrefix(strings.TrimPrefix(v, "--file="), "-f")
			a.target(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: t}}}, t)
		case strings.HasPrefix(v, "--output-directory"):
			a.runTimeWrite()
		case strings.HasPrefix(v, "--output="):
			a.target(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v[len("--output="):]}}}, v[len("--output="):])
		case v == "--output" && i+1 < len(args):
			i++
			t, _ := lit(args[i])
			a.target(args[i], t)
		case (sub == "archive" || sub == "format-patch") && strings.HasPrefix(v, "-o"):
			a.runTimeWrite()
		}
	}
	switch sub {
	case "diff", "log", "show", "format-patch", "archive", "range-diff", "diff-tree", "diff-index", "diff-files", "whatchanged", "bundle", "config":
		return true
	}
	return false
}

// harmlessGitKey reports whether a git setting given with -c runs no
// program: identity, colours, advice and a few display settings.
func harmlessGitKey(key string) bool {
	key = strings.ToLower(key)
	for _, p := range []string{"user.", "color.", "advice."} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	switch key {
	case "core.quotepath", "init.defaultbranch", "commit.gpgsign", "tag.gpgsign", "log.showsignature", "diff.noprefix", "safe.directory":
		return true
	}
	return false
}

// tarLists reports whether tar only lists an archive (t, --list), or
// only compares it (d, --diff).
func tarLists(args []*syntax.Word) bool {
	for i, w := range args {
		v, ok := lit(w)
		if !ok {
			continue
		}
		switch {
		case v == "--list" || v == "--diff" || v == "--compare":
			return true
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") || i == 0:
			if strings.ContainsAny(v, "xcruA") {
				return false
			}
			if strings.ContainsAny(v, "td") {
				return true
			}
		}
	}
	return false
}

// curl sees curl's output files: -o/--output names one; -O, -J,
// --output-dir, the header, cookie and trace files name theirs when it
// runs.
func (a *Analysis) curl(args []*syntax.Word) {
	for i := 0; i < len(args); i++ {
		v, ok := lit(args[i])
		switch {
		case !ok || !strings.HasPrefix(v, "-") || v == "-":
		case v == "--output" && i+1 < len(args):
			i++
			t, _ := lit(args[i])
			a.target(args[i], t)
		case strings.HasPrefix(v, "--output="):
			a.target(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v[len("--output="):]}}}, v[len("--output="):])
		case strings.HasPrefix(v, "--"):
			for _, p := range []string{"--remote-name", "--output-dir", "--dump-header", "--cookie-jar", "--trace", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc", "--remote-header-name", "--create-dirs"} {
				if strings.HasPrefix(v, p) {
					a.runTimeWrite()
					break
				}
			}
		case strings.HasSuffix(v, "o") && i+1 < len(args):
			i++
			t, _ := lit(args[i])
			a.target(args[i], t)
		case strings.ContainsAny(v, "oOJDc"):
			a.runTimeWrite()
		}
	}
}
