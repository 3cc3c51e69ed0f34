package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// vcsDirs are never searched.
var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, ".jj": true, ".sl": true}

// globMatcher matches relative slash paths with doublestar: a glob
// without a slash matches the base name at any depth, as ripgrep's --glob
// does.
type globMatcher struct {
	glob     string
	basename bool
}

func newGlobMatcher(glob string) (globMatcher, error) {
	glob = strings.TrimPrefix(strings.TrimPrefix(glob, "./"), "/")
	if !doublestar.ValidatePattern(glob) {
		return globMatcher{}, fmt.Errorf("invalid glob %q", glob)
	}
	return globMatcher{glob: glob, basename: !strings.Contains(strings.Trim(glob, "/"), "/")}, nil
}

func (m globMatcher) match(rel string) bool {
	target := rel
	if m.basename {
		target = path.Base(rel)
	}
	ok, _ := doublestar.Match(m.glob, target)
	return ok
}

// loadIgnore reads the patterns of one directory's .gitignore and .ignore,
// scoped to that directory (domain: its path from the walk root).
func loadIgnore(absDir string, domain []string) []ignorePattern {
	var out []ignorePattern
	for _, name := range []string{".gitignore", ".ignore"} {
		data, err := os.ReadFile(filepath.Join(absDir, name))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if p, ok := parseIgnore(line, domain); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// walkOptions select what a native walk visits.
type walkOptions struct {
	hidden    bool // include dot files and directories
	gitignore bool // honour .gitignore and .ignore files
	// skip, when set, prunes a file or directory (absolute path): denied
	// trees are never entered.
	skip func(abs string) bool
}

// walkFiles calls fn for every regular file under root, in lexical order,
// with its slash path relative to root. VCS directories are skipped.
//
// The walk never goes by name below root: each directory is opened
// relative to its parent's descriptor without following a symlink
// (openat, O_NOFOLLOW; on Windows by path, refused unless Windows names
// the file opened that path: workspace.OpenNoFollow), and fn's open opens
// its file the same way. A name
// swapped for a symlink meanwhile (by a command the model runs beside
// the search) is then skipped, where a walk by path would follow it into
// a tree nobody judged. root itself is opened by path, and skipped
// unless the kernel names the directory it opened root.
func walkFiles(root string, opt walkOptions, fn func(abs, rel string, d fs.DirEntry, open func() (*os.File, error)) error) error {
	var patterns ignoreMatcher
	if opt.gitignore {
		patterns = loadIgnore(root, nil)
	}
	form := workspace.FormOf(runtime.GOOS) // on Linux the names as they are
	top, err := os.Open(root)
	if err != nil {
		return nil // unreadable directories are skipped, as ripgrep does
	}
	defer top.Close()
	if real, ok := workspace.FileName(top); ok && form.Of(real) != form.Of(root) {
		return nil // root was swapped since it was resolved
	}
	var walk func(dir *os.File, abs string, parts []string) error
	walk = func(dir *os.File, abs string, parts []string) error {
		entries, err := dir.ReadDir(-1)
		if err != nil {
			return nil
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		mark := len(patterns)
		if opt.gitignore && len(parts) > 0 {
			patterns = append(patterns, loadIgnore(abs, parts)...)
		}
		defer func() { patterns = patterns[:mark] }()
		for _, e := range entries {
			name := e.Name()
			if !opt.hidden && strings.HasPrefix(name, ".") {
				continue
			}
			isDir := e.IsDir()
			if isDir && vcsDirs[name] {
				continue
			}
			child := append(parts[:len(parts):len(parts)], name)
			if opt.gitignore && len(patterns) > 0 && patterns.match(child, isDir) {
				continue
			}
			childAbs := filepath.Join(abs, name)
			if opt.skip != nil && opt.skip(childAbs) {
				continue
			}
			if isDir {
				sub, err := openAt(dir, name, childAbs, true)
				if err != nil {
					continue // gone, or no longer a directory
				}
				err = walk(sub, childAbs, child)
				sub.Close()
				if err != nil {
					return err
				}
				continue
			}
			if e.Type().IsRegular() {
				open := func() (*os.File, error) { return openAt(dir, name, childAbs, false) }
				if err := fn(childAbs, strings.Join(child, "/"), e, open); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(top, root, nil)
}
