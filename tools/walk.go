package tools

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// vcsDirs are never searched.
var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// globRegexp translates a glob (*, **, ?, [...], {a,b}) into an anchored
// regular expression over slash-separated paths.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0 // inside {…}
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && i+1 < len(glob) && glob[i+1] == '*':
			i++
			if i+1 < len(glob) && glob[i+1] == '/' {
				i++
				b.WriteString("(?:.*/)?")
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := glob[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += end + 1
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// GlobMatch reports whether a slash path matches a glob (*, **, ?, [...],
// {a,b}); a glob without a slash matches the base name at any depth, as
// ripgrep's --glob does.
func GlobMatch(glob, path string) (bool, error) {
	m, err := newGlobMatcher(glob)
	if err != nil {
		return false, err
	}
	return m.match(path), nil
}

// globMatcher matches relative slash paths: a glob without a slash matches
// the base name at any depth, as ripgrep's --glob does.
type globMatcher struct {
	re       *regexp.Regexp
	basename bool
}

func newGlobMatcher(glob string) (globMatcher, error) {
	glob = strings.TrimPrefix(glob, "./")
	re, err := globRegexp(strings.TrimPrefix(glob, "/"))
	return globMatcher{re: re, basename: !strings.Contains(strings.Trim(glob, "/"), "/")}, err
}

func (m globMatcher) match(rel string) bool {
	if m.basename {
		return m.re.MatchString(filepath.Base(rel))
	}
	return m.re.MatchString(rel)
}

// ignoreRule is one .gitignore line.
type ignoreRule struct {
	m       globMatcher
	negate  bool
	dirOnly bool
}

// ignoreFile is the rules of one directory's .gitignore (and .ignore).
type ignoreFile struct {
	dir   string // slash path relative to the walk root ("" for the root)
	rules []ignoreRule
}

func loadIgnore(absDir, relDir string) *ignoreFile {
	f := &ignoreFile{dir: relDir}
	for _, name := range []string{".gitignore", ".ignore"} {
		data, err := os.ReadFile(filepath.Join(absDir, name))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), " \r")
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			r := ignoreRule{}
			if strings.HasPrefix(line, "!") {
				r.negate, line = true, line[1:]
			}
			if strings.HasSuffix(line, "/") {
				r.dirOnly, line = true, strings.TrimSuffix(line, "/")
			}
			anchored := strings.Contains(line, "/")
			m, err := newGlobMatcher(line)
			if err != nil {
				continue
			}
			if anchored {
				m.basename = false
			}
			r.m = m
			f.rules = append(f.rules, r)
		}
	}
	if len(f.rules) == 0 {
		return nil
	}
	return f
}

// ignored applies the ignore files on the path from the root (outermost
// first); the last matching rule wins.
func ignored(stack []*ignoreFile, rel string, isDir bool) bool {
	out := false
	for _, f := range stack {
		sub := rel
		if f.dir != "" {
			if !strings.HasPrefix(rel, f.dir+"/") {
				continue
			}
			sub = rel[len(f.dir)+1:]
		}
		for _, r := range f.rules {
			if r.dirOnly && !isDir {
				continue
			}
			if r.m.match(sub) {
				out = !r.negate
			}
		}
	}
	return out
}

// walkOptions select what a native walk visits.
type walkOptions struct {
	hidden    bool // include dot files and directories
	gitignore bool // honour .gitignore and .ignore files
}

// walkFiles calls fn for every regular file under root, in lexical order,
// with its slash path relative to root. VCS directories are skipped.
func walkFiles(root string, opt walkOptions, fn func(abs, rel string, d fs.DirEntry) error) error {
	var stack []*ignoreFile
	if opt.gitignore {
		if f := loadIgnore(root, ""); f != nil {
			stack = append(stack, f)
		}
	}
	var walk func(abs, rel string) error
	walk = func(abs, rel string) error {
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil // unreadable directories are skipped, as ripgrep does
		}
		pushed := false
		if opt.gitignore && rel != "" {
			if f := loadIgnore(abs, rel); f != nil {
				stack = append(stack, f)
				pushed = true
			}
		}
		for _, e := range entries {
			name := e.Name()
			childRel := name
			if rel != "" {
				childRel = rel + "/" + name
			}
			if !opt.hidden && strings.HasPrefix(name, ".") {
				continue
			}
			isDir := e.IsDir()
			if isDir && vcsDirs[name] {
				continue
			}
			if opt.gitignore && ignored(stack, childRel, isDir) {
				continue
			}
			childAbs := filepath.Join(abs, name)
			if isDir {
				if err := walk(childAbs, childRel); err != nil {
					return err
				}
				continue
			}
			if e.Type().IsRegular() {
				if err := fn(childAbs, childRel, e); err != nil {
					return err
				}
			}
		}
		if pushed {
			stack = stack[:len(stack)-1]
		}
		return nil
	}
	return walk(root, "")
}
