// Command fakerg is the Wine session test's ripgrep, built as rg.exe:
// Debian has no Windows build of ripgrep to run under Wine. It answers
// the one command line the bridge's grep gives ripgrep (tools/search.go's
// rgGrep: --no-config --json --regexp=P [--glob=G…] -- ROOT) as ripgrep
// 14 does: JSON Lines of begin, match and end messages per file with a
// match, then a summary; exit status 0 with a match, 1 without, 2 on a
// bad pattern or command line (the format: docs.rs grep_printer::JSON,
// "Format", read 2026-12-07). --glob is taken as ripgrep's include and
// !exclude globs on a file's base name only, hidden files and folders
// are skipped, and .gitignore is not read (the test's tree has none).
// Each run appends its arguments, one line, to the file
// $DSH_FAKE_RG_LOG, so the test knows ripgrep ran.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() { os.Exit(run(os.Args[1:])) }

type text struct {
	Text string `json:"text"`
}

func run(args []string) int {
	if log := os.Getenv("DSH_FAKE_RG_LOG"); log != "" {
		if f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, strings.Join(args, " "))
			f.Close()
		}
	}
	var pattern string
	var include, exclude, roots []string
	for i, a := range args {
		switch {
		case a == "--":
			roots = args[i+1:]
		case a == "--no-config", a == "--json":
		case strings.HasPrefix(a, "--regexp="):
			pattern = strings.TrimPrefix(a, "--regexp=")
		case strings.HasPrefix(a, "--glob=!"):
			exclude = append(exclude, strings.TrimPrefix(a, "--glob=!"))
		case strings.HasPrefix(a, "--glob="):
			include = append(include, strings.TrimPrefix(a, "--glob="))
		default:
			if len(roots) == 0 {
				fmt.Fprintf(os.Stderr, "rg: unknown flag %s\n", a)
				return 2
			}
		}
		if roots != nil {
			break
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil || len(roots) == 0 {
		fmt.Fprintf(os.Stderr, "regex parse error: %v\n", err)
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	emit := func(kind string, data any) {
		b, _ := json.Marshal(map[string]any{"type": kind, "data": data})
		out.Write(append(b, '\n'))
	}
	matched := 0
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			name := d.Name()
			if p != root && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !globs(name, include, exclude) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || bytes.IndexByte(data, 0) >= 0 {
				return nil
			}
			began, offset := false, 0
			for n, line := range bytes.SplitAfter(data, []byte("\n")) {
				if len(line) > 0 && re.Match(bytes.TrimRight(line, "\r\n")) {
					if !began {
						emit("begin", map[string]any{"path": text{p}})
						began = true
					}
					loc := re.FindIndex(line)
					emit("match", map[string]any{"path": text{p}, "lines": text{string(line)}, "line_number": n + 1,
						"absolute_offset": offset, "submatches": []any{map[string]any{"match": text{string(line[loc[0]:loc[1]])}, "start": loc[0], "end": loc[1]}}})
					matched++
				}
				offset += len(line)
			}
			if began {
				emit("end", map[string]any{"path": text{p}, "binary_offset": nil})
			}
			return nil
		})
	}
	emit("summary", map[string]any{"stats": map[string]any{"matches": matched}})
	if matched == 0 {
		return 1
	}
	return 0
}

// globs reports whether a file's base name passes the include and
// exclude globs.
func globs(name string, include, exclude []string) bool {
	for _, g := range exclude {
		if ok, _ := filepath.Match(g, name); ok {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	for _, g := range include {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
	}
	return false
}
