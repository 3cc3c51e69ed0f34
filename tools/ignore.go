package tools

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignorePattern is one line of a .gitignore (or .ignore) file, with the
// semantics of gitignore(5), as the native walker applies them.
//
// The patterns are matched with doublestar, which the glob tool uses too,
// after the line is translated: gitignore has no brace alternation (a "{"
// is literal), a pattern without a slash matches a name at any depth, one
// with a slash is anchored to its file's directory, and "a/**" matches
// what is inside a but not a itself. go-git's gitignore package did this
// before, but it imports go-git's config reader (gcfg, encoding/gob),
// whose initialisation every bridge start paid; TestIgnore_AgreesWithGit
// checks this one against git itself.
type ignorePattern struct {
	prefix  string // the directory of its file, relative to the walk root, with a trailing "/" ("" at the root)
	glob    string // doublestar pattern, matched against the path below prefix (anchored) or the name (not)
	negate  bool   // "!": a match re-includes
	dirOnly bool   // a trailing "/": directories only
	base    bool   // no slash: matched against the name alone
}

// parseIgnore parses one line of an ignore file in the directory domain
// (its components from the walk root). ok is false for blank lines and
// comments.
func parseIgnore(line string, domain []string) (p ignorePattern, ok bool) {
	line = trimIgnoreSpaces(strings.TrimSuffix(line, "\r"))
	if line == "" || strings.HasPrefix(line, "#") {
		return p, false
	}
	if strings.HasPrefix(line, "!") {
		p.negate, line = true, line[1:]
	}
	if len(domain) > 0 {
		p.prefix = strings.Join(domain, "/") + "/"
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, "\\/") {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false
	}
	p.base = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if strings.HasSuffix(line, "/**") {
		line += "/*" // inside it, not itself
	}
	p.glob = escapeBraces(line)
	return p, true
}

// trimIgnoreSpaces drops trailing spaces unless a backslash escapes them.
func trimIgnoreSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			break
		}
		end--
	}
	return s[:end]
}

// escapeBraces makes "{", "}" and "," literal, as they are in gitignore;
// backslash escapes are kept as they are.
func escapeBraces(s string) string {
	if !strings.ContainsAny(s, "{},") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		}
		if c == '{' || c == '}' || c == ',' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ignoreMatcher is the patterns in force in a directory: its own ignore
// files' and its ancestors', outermost first.
type ignoreMatcher []ignorePattern

// match reports whether the path (components from the walk root) is
// ignored: the last pattern that matches it decides. A directory it
// ignores is not entered, so nothing below it can be re-included, as in
// git.
func (m ignoreMatcher) match(parts []string, isDir bool) bool {
	full := strings.Join(parts, "/")
	name := parts[len(parts)-1]
	for i := len(m) - 1; i >= 0; i-- {
		p := &m[i]
		if p.dirOnly && !isDir {
			continue
		}
		rel, under := strings.CutPrefix(full, p.prefix)
		if !under || rel == "" {
			continue
		}
		target := rel
		if p.base {
			target = name
		}
		if ok, _ := doublestar.Match(p.glob, target); ok {
			return !p.negate
		}
	}
	return false
}
