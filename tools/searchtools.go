package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// GrepTimeout is grep's declared timeout (contract §4).
const GrepTimeout = 30 * time.Second

type grepArgs struct {
	Pattern string `json:"pattern" desc:"Regular expression (ripgrep syntax) to search file contents for."`
	Path    string `json:"path,omitempty" desc:"File or directory to search; defaults to the workspace."`
	Include string `json:"include,omitempty" desc:"A single glob of files to search, for example *.go or src/**/*.{ts,tsx}."`
}

type globArgs struct {
	Pattern string `json:"pattern" desc:"Glob of file paths to find, for example **/*.go."`
	Path    string `json:"path,omitempty" desc:"Directory to search; defaults to the workspace."`
}

type globValue struct {
	Root      string   `json:"root"`
	Paths     []string `json:"paths"`
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
}

func checkInclude(inc string) error {
	depth := 0
	for _, c := range inc {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				return errors.New("include must be a single glob (comma-separated lists are not supported; use {a,b})")
			}
		}
	}
	if strings.HasPrefix(inc, "!") {
		return errors.New("include must be a single glob (negated globs are not supported)")
	}
	return nil
}

func renderGrep(v grepResult) string {
	if v.Total == 0 {
		return "No matches found"
	}
	var b strings.Builder
	if v.Truncated {
		fmt.Fprintf(&b, "Found %d of %d matches", len(v.Matches), v.Total)
	} else if v.Total == 1 {
		b.WriteString("Found 1 match")
	} else {
		fmt.Fprintf(&b, "Found %d matches", v.Total)
	}
	for _, f := range groupMatches(v.Matches) {
		b.WriteString("\n\n" + f.Path)
		for _, m := range f.Matches {
			b.WriteString("\nLine " + strconv.Itoa(m.LineNumber) + ": " + m.Line)
		}
	}
	if v.Truncated {
		fmt.Fprintf(&b, "\n\n(Showing the first %d matches. Narrow the pattern, path or include to see the rest.)", len(v.Matches))
	}
	return b.String()
}

// searchMeta returns the matches card's meta, dropping trailing file
// groups until it fits in searchMetaMaxBytes.
func searchMeta(v grepResult) (jsonv.Value, error) {
	files := groupMatches(v.Matches)
	for {
		m := map[string]any{"shape": "matches", "files": files, "truncated": v.Truncated || len(files) < len(groupMatches(v.Matches)), "total": v.Total}
		b, err := json.Marshal(m)
		if err != nil {
			return jsonv.Value{}, err
		}
		if len(b) <= searchMetaMaxBytes || len(files) == 0 {
			return jsonv.Parse(b)
		}
		files = files[:len(files)-1]
	}
}

func newSearchTools(w *workspace.Workspace, native bool, rules PathRules, jail searchJail) ([]*registry.Tool, error) {
	grep, err := registry.Define(registry.TypedTool[grepArgs, grepResult]{
		Name:        "grep",
		Description: "Search file contents in the workspace with a regular expression (ripgrep). Honours .gitignore; skips hidden and binary files. Returns matching lines grouped by file.",
		Timeout:     GrepTimeout,
		Execute: func(ctx context.Context, a grepArgs, _ registry.RunContext) (grepResult, error) {
			switch {
			case a.Pattern == "":
				return grepResult{}, errors.New("pattern must be a non-empty string")
			case a.Path != "" && strings.TrimSpace(a.Path) == "":
				return grepResult{}, errors.New("path must not be blank")
			}
			if err := checkInclude(a.Include); err != nil {
				return grepResult{}, err
			}
			root := rootOf(w, a.Path)
			if a.Path != "" {
				if err := holdTo(ctx, w, w.Abs(a.Path), root.Real, "search"); err != nil {
					return grepResult{}, err
				}
			}
			if rg := ripgrep(native); rg != "" {
				return grepRG(ctx, rg, jail, w, newHider(w, rules), root, a.Pattern, a.Include)
			}
			return grepNative(ctx, w, newHider(w, rules), root, a.Pattern, a.Include)
		},
		Render: func(_ grepArgs, v grepResult) ([]card.Content, error) {
			return []card.Content{card.Text(renderGrep(v))}, nil
		},
		PresentationMeta: func(_ grepArgs, v grepResult, _ jsonv.Value) (jsonv.Value, error) { return searchMeta(v) },
		PresentCall: func(a grepArgs) card.CallView {
			title := "Grep " + a.Pattern
			if a.Path != "" {
				title += " in " + a.Path
			}
			if a.Include != "" {
				title += " (" + a.Include + ")"
			}
			return &card.Generic{Title: title, Kind: card.KindSearch, RawInput: a.Pattern}
		},
		PresentResult: func(a grepArgs, r registry.ToolResult) card.ResultView {
			var m card.SearchMatches
			if r.IsError || !r.Meta.IsValid() || r.Meta.Decode(&m) != nil || m.Files == nil {
				return nil
			}
			m.Title = "Grep " + a.Pattern
			return &m
		},
	})
	if err != nil {
		return nil, err
	}
	grep.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "path", false) }

	glob, err := registry.Define(registry.TypedTool[globArgs, globValue]{
		Name:        "glob",
		Description: "Find files by path glob (for example **/*.go), including hidden and ignored files, least recently modified first.",
		Execute: func(ctx context.Context, a globArgs, _ registry.RunContext) (globValue, error) {
			if strings.TrimSpace(a.Pattern) == "" {
				return globValue{}, errors.New("pattern must be a non-empty string")
			}
			at := rootOf(w, a.Path)
			at.Path = w.Abs(at.Path) // paths found are shown under it
			root := at.Path
			if err := holdTo(ctx, w, root, at.Real, "search"); err != nil {
				return globValue{}, err
			}
			if info, err := os.Stat(at.Real); err != nil || !info.IsDir() {
				return globValue{}, fsError("FS_NOT_DIRECTORY", fmt.Sprintf("cannot search %q: not a directory", root))
			}
			paths, err := globFiles(ctx, ripgrep(native), jail, newHider(w, rules), at.Real, a.Pattern)
			if err != nil {
				return globValue{}, err
			}
			v := globValue{Root: root, Total: len(paths), Paths: make([]string, 0, min(len(paths), 1000))}
			for _, p := range paths[:min(len(paths), 1000)] {
				v.Paths = append(v.Paths, relPath(w, at.shown(p)))
			}
			v.Truncated = len(paths) > len(v.Paths)
			return v, nil
		},
		Render: func(_ globArgs, v globValue) ([]card.Content, error) {
			if v.Total == 0 {
				return []card.Content{card.Text("No files found")}, nil
			}
			shown := v.Paths[:min(len(v.Paths), GlobMaxPaths)]
			text := strings.Join(shown, "\n")
			if v.Total > len(shown) {
				text += fmt.Sprintf("\n\n(Showing %d of %d paths. Narrow the pattern or path to see the rest.)", len(shown), v.Total)
			}
			return []card.Content{card.Text(text)}, nil
		},
		PresentationMeta: func(_ globArgs, v globValue, _ jsonv.Value) (jsonv.Value, error) {
			shown := v.Paths[:min(len(v.Paths), GlobMaxPaths)]
			return jsonv.FromGo(map[string]any{"shape": "paths", "paths": shown, "truncated": v.Total > len(shown), "total": v.Total})
		},
		PresentCall: func(a globArgs) card.CallView {
			title := "Glob " + a.Pattern
			if a.Path != "" {
				title += " in " + a.Path
			}
			return &card.Generic{Title: title, Kind: card.KindSearch, RawInput: a.Pattern}
		},
		PresentResult: func(a globArgs, r registry.ToolResult) card.ResultView {
			var m card.SearchPaths
			if r.IsError || !r.Meta.IsValid() || r.Meta.Decode(&m) != nil || m.Paths == nil {
				return nil
			}
			m.Title = "Glob " + a.Pattern
			return &m
		},
	})
	if err != nil {
		return nil, err
	}
	glob.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "path", false) }
	return []*registry.Tool{grep, glob}, nil
}

// globFiles lists the files under root matching pattern, least recently
// modified first (ties by path), absolute.
func globFiles(ctx context.Context, rg string, jail searchJail, hide *hider, root, pattern string) ([]string, error) {
	if rg != "" {
		// No --sort: ripgrep sorts siblings during its walk, not globally,
		// so the global order is established below, the same for both modes.
		args := []string{"--no-config", "--files", "--glob=" + pattern, "--no-ignore", "--hidden"}
		for d := range vcsDirs {
			args = append(args, "--glob=!"+d)
		}
		args = append(args, hide.excludes(root)...)
		cmd := exec.CommandContext(ctx, rg, args...)
		cmd.Dir = root
		if err := jail.confine(cmd); err != nil {
			return nil, searchError("SEARCH_FAILED", "cannot confine ripgrep: "+err.Error())
		}
		out, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			return nil, searchError("SEARCH_FAILED", "ripgrep failed ("+err.Error()+")") // never its stderr: grepRG
		}
		var hits []hit
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l == "" {
				continue
			}
			p := filepath.Join(root, l)
			if hide.hidden(p) {
				continue
			}
			var mt int64
			if info, err := os.Stat(p); err == nil {
				mt = info.ModTime().UnixNano()
			}
			hits = append(hits, hit{p, mt})
		}
		return oldestFirst(hits), nil
	}
	m, err := newGlobMatcher(pattern)
	if err != nil {
		return nil, searchError("SEARCH_INVALID_PATTERN", "invalid glob: "+err.Error())
	}
	var hits []hit
	err = walkFiles(root, walkOptions{hidden: true, skip: hide.skip()}, func(abs, rel string, d fs.DirEntry, _ func() (*os.File, error)) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if m.match(rel) {
			var mt int64
			if info, err := d.Info(); err == nil {
				mt = info.ModTime().UnixNano()
			}
			hits = append(hits, hit{abs, mt})
		}
		return nil
	})
	if err != nil {
		return nil, registry.NewError("SearchError", "SEARCH_ABORTED", "search aborted")
	}
	return oldestFirst(hits), nil
}

type hit struct {
	path  string
	mtime int64
}

// oldestFirst orders hits by modification time, then path.
func oldestFirst(hits []hit) []string {
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].mtime != hits[j].mtime {
			return hits[i].mtime < hits[j].mtime
		}
		return hits[i].path < hits[j].path
	})
	paths := make([]string, len(hits))
	for i, h := range hits {
		paths[i] = h.path
	}
	return paths
}
