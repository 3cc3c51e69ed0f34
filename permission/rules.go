package permission

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Verdict is what rules (or a policy) say of a call, strongest last.
type Verdict uint8

// Verdicts.
const (
	None Verdict = iota // no rule applies: the mode decides
	Allow
	Ask
	Deny
)

func (v Verdict) String() string {
	return [...]string{"none", "allow", "ask", "deny"}[v]
}

// Source is where a rule was written.
type Source uint8

// Sources.
const (
	FromUser      Source = iota // the user's settings: trusted
	FromWorkspace               // the workspace's .dsh/settings.json
)

// Rule is one permission pattern, tool or tool(spec), as written.
type Rule struct {
	Text   string
	Tool   string
	Spec   string
	Source Source
}

// ruleRE is compiled at first use: start-up compiles no regexps.
var ruleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_-]+)(?:\((.*)\))?$`) })

// ParseRule parses "tool" or "tool(spec)", checking path globs.
func ParseRule(text string, src Source) (Rule, error) {
	m := ruleRE().FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return Rule{}, fmt.Errorf("%q is not a rule (tool or tool(pattern))", text)
	}
	r := Rule{Text: strings.TrimSpace(text), Tool: m[1], Spec: strings.TrimSpace(m[2]), Source: src}
	if isPathTool(r.Tool) && r.Spec != "" && !doublestar.ValidatePattern(strings.TrimPrefix(r.Spec, "~/")) {
		return Rule{}, fmt.Errorf("%q: invalid glob", text)
	}
	if r.Tool == "web_fetch" && r.Spec != "" && r.Spec != "*" && !strings.HasPrefix(r.Spec, "domain:") {
		return Rule{}, fmt.Errorf("%q: web_fetch rules name a domain (web_fetch(domain:example.com))", text)
	}
	return r, nil
}

// namesTool reports whether a rule's tool names a tool: the tool itself,
// or, for mcp__<server>, every tool of that MCP server.
func namesTool(ruleTool, tool string) bool {
	if ruleTool == tool {
		return true
	}
	server, ok := strings.CutPrefix(ruleTool, "mcp__")
	return ok && server != "" && !strings.Contains(server, "__") && strings.HasPrefix(tool, ruleTool+"__")
}

// isPathTool reports whether a tool's rules name paths.
func isPathTool(tool string) bool {
	switch tool {
	case "read", "write", "edit", "grep", "glob":
		return true
	}
	return false
}

// compiled is a rule ready to match: path globs absolute over resolved
// paths (in the workspace's form: case-folded where the file system
// folds case), command patterns split into words, domains canonical.
type compiled struct {
	Rule
	any  bool           // bare tool name, or (*)
	form workspace.Form // how paths compare: glob and tree are in it
	glob string         // file tools: absolute slash glob over resolved paths
	tree string         // glob ending in /**: the tree's root also matches
	// spelt are glob and tree as the file system spells them, not
	// case-folded: the denied trees searches and the sandbox skip.
	speltGlob, speltTree string
	words                []string // bash: the pattern's words
	prefix               bool     // bash: pattern:* (the words, then anything)
	domain               string   // web_fetch: canonical host
}

// compile readies r for matching in a workspace whose first root is root,
// for a person whose home folder is home, on the platform goos (a GOOS
// value: how the rule's paths are spelt).
func compile(r Rule, root, home, goos string) compiled {
	c := compiled{Rule: r, any: r.Spec == "" || r.Spec == "*"}
	if c.any {
		return c
	}
	switch {
	case isPathTool(r.Tool):
		g := r.Spec
		if goos == "windows" {
			g, root, home = winSpec(g, root), workspace.Slash(root, goos), workspace.Slash(home, goos)
		}
		// The folders a rule is relative to are literal, whatever
		// characters their names hold ({, [, *).
		switch {
		case strings.HasPrefix(g, "~/"):
			g = globQuote(filepath.ToSlash(home)) + "/" + g[2:]
		case strings.HasPrefix(g, "/"), driveAbs(g):
		case !strings.Contains(strings.TrimPrefix(g, "./"), "/"):
			g = globQuote(filepath.ToSlash(root)) + "/**/" + strings.TrimPrefix(g, "./")
		default:
			g = globQuote(filepath.ToSlash(root)) + "/" + strings.TrimPrefix(g, "./")
		}
		c.glob = cleanGlob(g)
		if goos == runtime.GOOS { // a rule for another platform (a test's) is matched as written
			c.glob = resolveGlobPrefix(c.glob)
		}
		if goos == "windows" && driveAbs(c.glob) {
			c.glob = strings.ToUpper(c.glob[:1]) + c.glob[1:] // as Slash spells the paths matched
		}
		if strings.HasSuffix(g, "/**") {
			c.tree = globUnquote(strings.TrimSuffix(c.glob, "/**"))
		}
		c.speltGlob, c.speltTree = c.glob, c.tree
	case r.Tool == "web_fetch":
		c.domain = CanonicalHost(strings.TrimPrefix(r.Spec, "domain:"))
	default:
		spec := r.Spec
		spec, c.prefix = strings.CutSuffix(spec, ":*")
		if !c.prefix {
			spec, c.prefix = strings.CutSuffix(spec, " *")
		}
		c.words = strings.Fields(spec)
		if len(c.words) > 0 {
			c.words[0] = path.Base(c.words[0])
		}
	}
	return c
}

// winSpec is a Windows path rule's glob in the slash form rules match
// (workspace.Slash): "\\" is a separator there, not an escape, as
// path/filepath.Match takes it on Windows; a drive, UNC or \\?\ path is
// absolute (c:\ws\** is C:/ws/**, \\?\UNC\host\share\** is
// //host/share/**), and one rooted without a drive (/ws/**) is on the
// workspace's drive, as Win32 takes \ws.
func winSpec(g, root string) string {
	g = strings.ReplaceAll(g, `\`, "/")
	switch {
	case driveAbs(g), strings.HasPrefix(g, "//"):
		return workspace.Slash(g, "windows")
	case strings.HasPrefix(g, "/"):
		if r := workspace.Slash(root, "windows"); driveAbs(r) {
			return r[:2] + g
		}
	}
	return g
}

// driveAbs reports whether the slash path g starts with a drive's root
// (C:/).
func driveAbs(g string) bool {
	return len(g) >= 3 && g[1] == ':' && g[2] == '/' && ('a' <= g[0] && g[0] <= 'z' || 'A' <= g[0] && g[0] <= 'Z')
}

// cleanGlob is path.Clean of the slash glob g, keeping a UNC path's
// leading "//".
func cleanGlob(g string) string {
	if strings.HasPrefix(g, "//") && !strings.HasPrefix(g, "///") {
		return "/" + path.Clean(g[1:])
	}
	return path.Clean(g)
}

// in returns c matching paths in the form f: its globs case-folded when
// f folds case, so that a rule on secrets/** holds for Secrets/KEY.
func (c compiled) in(f workspace.Form) compiled {
	c.form = f
	if f.Fold {
		c.glob, c.tree = workspace.Fold(c.glob), workspace.Fold(c.tree)
	}
	return c
}

// globQuote escapes the characters a glob gives a meaning.
func globQuote(s string) string {
	if !strings.ContainsAny(s, "*?[]{}\\") {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune("*?[]{}\\", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// globUnquote undoes globQuote.
func globUnquote(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// resolveGlobPrefix resolves the symlinks of a glob's literal leading
// directories, so that rules compare against resolved paths.
func resolveGlobPrefix(g string) string {
	i := strings.IndexAny(g, "*?[{\\")
	if i < 0 {
		return filepath.ToSlash(workspace.Resolve(filepath.FromSlash(g)))
	}
	dir := g[:strings.LastIndex(g[:i], "/")+1]
	if dir == "" || dir == "/" || driveAbs(dir) && len(dir) == 3 {
		return g
	}
	return filepath.ToSlash(workspace.Resolve(filepath.FromSlash(strings.TrimSuffix(dir, "/")))) + "/" + g[len(dir):]
}

// matchPath reports whether a resolved absolute path matches a compiled
// path rule (a tree rule also matches its root), in the rule's form.
func (c compiled) matchPath(p string) bool {
	if c.any {
		return true
	}
	p = c.form.Of(filepath.ToSlash(p))
	if c.tree != "" && (p == c.tree || strings.HasPrefix(p, c.tree+"/")) {
		return true
	}
	ok, err := doublestar.Match(c.glob, p)
	return err == nil && ok
}

// matchCommand reports whether a command rule covers a simple command.
// For allow (strict), every word the pattern names must be a literal
// that equals it, a program written with a directory must come from a
// system directory, and an exact pattern needs exactly those words; for
// deny (could match), computed words match anything.
func (c compiled) matchCommand(s Simple, strict bool) bool {
	if c.any {
		return true
	}
	if s.Dynamic {
		return !strict
	}
	if strict && s.Pathed && !systemDir(s.Dir) {
		return false
	}
	n := 1 + len(s.Args) // s.Words(), not built: this runs for every rule and command
	if n < len(c.words) || (!c.prefix && n != len(c.words) && !(s.MoreArgs && !strict)) {
		return false
	}
	if strict && !c.prefix && s.MoreArgs {
		return false
	}
	for i, w := range c.words {
		dyn := i > 0 && s.dyn[i-1]
		switch {
		case dyn && strict:
			return false
		case dyn:
		case i == 0 && s.Program != w, i > 0 && s.Args[i-1] != w:
			return false
		}
	}
	return true
}

// systemDir reports whether programs in dir are installed, not planted.
func systemDir(dir string) bool {
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", "/usr/local/go/bin":
		return true
	}
	return false
}

// matchWords reports whether an unparsable command's loose words could
// run what a deny pattern names: every word of the pattern appears.
func (c compiled) matchWords(words []string) bool {
	if c.any {
		return true
	}
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
	}
	for _, w := range c.words {
		if !seen[w] {
			return false
		}
	}
	return len(c.words) > 0
}

// matchHost reports whether a web_fetch rule covers a call's canonical
// host: the domain itself or a subdomain of it; an address rule also
// covers a name that resolves to that address (looked up only then).
func (c compiled) matchHost(call *call) bool {
	if c.any || call.host == c.domain || strings.HasSuffix(call.host, "."+c.domain) {
		return true
	}
	if _, isAddr := parseAddr(c.domain); !isAddr {
		return false
	}
	_, addrs := call.lookup()
	for _, a := range addrs {
		if a == c.domain {
			return true
		}
	}
	return false
}
