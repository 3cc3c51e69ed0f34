package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Search caps (contract §4).
const (
	GrepMaxMatches     = 250
	GrepMaxLineBytes   = 2000
	GrepMaxRawOutput   = 20_000_000
	GlobMaxPaths       = 100
	searchMetaMaxBytes = 64 * 1024
)

// Match is one grep hit; Path is relative to the workspace when inside it.
type Match struct {
	Path       string `json:"path"`
	LineNumber int    `json:"lineNumber"`
	Line       string `json:"line"`
}

// grepResult is a search's outcome: the first GrepMaxMatches hits and
// how many there were in all.
type grepResult struct {
	Matches   []Match `json:"matches"`
	Total     int     `json:"total"`
	Truncated bool    `json:"truncated"`
}

func searchError(code, msg string) error { return registry.NewError("SearchError", code, msg) }

// ripgrep returns the rg binary to use, or "" for the native walker. It
// is looked up as a program run outside the sandbox is: without a sandbox
// (and as the helper execs it) nothing confines what it is.
func ripgrep(native bool) string {
	if native {
		return ""
	}
	p, err := safepath.LookPath("rg") // it runs outside the sandbox
	if err != nil {
		return ""
	}
	return p
}

func previewLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	if len(s) <= GrepMaxLineBytes {
		return s
	}
	cut := s[:GrepMaxLineBytes]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + " (line truncated)"
}

func (r *grepResult) add(m Match) {
	r.Total++
	if len(r.Matches) < GrepMaxMatches {
		r.Matches = append(r.Matches, m)
	} else {
		r.Truncated = true
	}
}

// searchRoot is where a search runs: the path the call gave, as written
// (the workspace's directory when it gave none), and that path as it was
// judged, every symlink resolved. A search walks Real, never Path, so a symlink on
// Path swapped after the judgement (by a command the model runs beside
// the call) cannot lead it into a tree nobody judged; its results are
// shown under Path, as the model named it.
type searchRoot struct {
	Path, Real string
}

// rootOf is the search root of path ("" for the workspace's directory),
// resolved now.
func rootOf(w *workspace.Workspace, path string) searchRoot {
	if path == "" {
		return searchRoot{Path: w.Cwd(), Real: w.Roots()[0]}
	}
	return searchRoot{Path: path, Real: workspace.Resolve(w.Abs(path))}
}

// shown is p, a path the search found under r.Real, under r.Path.
func (r searchRoot) shown(p string) string {
	rel, err := filepath.Rel(r.Real, p)
	if err != nil || safepath.Escapes(rel) {
		return p
	}
	return filepath.Join(r.Path, rel)
}

// rgGrep is the ripgrep command of a grep in root: its JSON output mode,
// without a shell, run in the workspace's resolved directory and handed
// the resolved root (results then name files under it).
func rgGrep(ctx context.Context, rg string, w *workspace.Workspace, hide *hider, root searchRoot, pattern, include string) *exec.Cmd {
	args := []string{"--no-config", "--json", "--regexp=" + pattern}
	if include != "" {
		args = append(args, "--glob="+include)
	}
	args = append(args, hide.excludes(root.Real)...)
	args = append(args, "--", root.Real)
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = w.Roots()[0]
	return cmd
}

// rgData is a string in ripgrep's JSON output: text when it is valid
// UTF-8, else its bytes in base64.
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

// value is the string d holds, and whether it holds one.
func (d rgData) value() (string, bool) {
	switch {
	case d.Text != nil:
		return *d.Text, true
	case d.Bytes != nil:
		b, err := base64.StdEncoding.DecodeString(*d.Bytes)
		return string(b), err == nil
	}
	return "", false
}

// grepRG runs ripgrep (rgGrep) in root, in jail.
//
// What ripgrep writes to stderr never reaches the model: it names the
// files it failed on, and under a swap those may lie in a denied tree. A
// failure is reported by ripgrep's exit status alone (the pattern's own
// errors excepted), and its stderr goes to the log.
func grepRG(ctx context.Context, rg string, jail searchJail, w *workspace.Workspace, hide *hider, root searchRoot, pattern, include string) (grepResult, error) {
	cmd := rgGrep(ctx, rg, w, hide, root, pattern, include)
	if err := jail.confine(cmd); err != nil {
		return grepResult{}, searchError("SEARCH_FAILED", "cannot confine ripgrep: "+err.Error())
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return grepResult{}, searchError("SEARCH_FAILED", err.Error())
	}
	if err := cmd.Start(); err != nil {
		return grepResult{}, searchError("SEARCH_FAILED", "cannot run ripgrep: "+err.Error())
	}
	res := grepResult{Matches: []Match{}}
	sc := bufio.NewScanner(io.LimitReader(out, GrepMaxRawOutput))
	sc.Buffer(make([]byte, 64*1024), GrepMaxRawOutput)
	for sc.Scan() {
		var rec struct {
			Type string `json:"type"`
			Data struct {
				Path       rgData `json:"path"`
				Lines      rgData `json:"lines"`
				LineNumber int    `json:"line_number"`
			} `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Type != "match" {
			continue
		}
		if len(res.Matches) >= GrepMaxMatches {
			res.add(Match{}) // counted, not kept
			continue
		}
		line := "(line is not valid UTF-8)"
		if rec.Data.Lines.Text != nil {
			line = previewLine(*rec.Data.Lines.Text)
		}
		found, ok := rec.Data.Path.value() // absolute: rg was handed an absolute root
		if !ok {
			continue // a match nobody can name is never judged, so never shown
		}
		if !filepath.IsAbs(found) {
			found = filepath.Join(cmd.Dir, found)
		}
		if hide.hidden(found) {
			continue // in a denied tree, whatever the root
		}
		res.add(Match{Path: relPath(w, root.shown(found)), LineNumber: rec.Data.LineNumber, Line: line})
	}
	if sc.Err() != nil || sc.Scan() {
		res.Truncated = true // raw output overflow: what was counted stands
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return grepResult{}, registry.NewError("SearchError", "SEARCH_ABORTED", "search aborted")
	case err == nil, errors.As(err, &ee) && ee.ExitCode() == 1:
		return res, nil
	case strings.Contains(stderr.String(), "regex parse error") || strings.Contains(stderr.String(), "error parsing"):
		return grepResult{}, searchError("SEARCH_INVALID_PATTERN", "invalid pattern: "+strings.TrimSpace(stderr.String()))
	case res.Total > 0:
		return res, nil // partial errors (unreadable files) with results
	}
	slog.Debug("grep: ripgrep failed", "err", err, "stderr", strings.TrimSpace(stderr.String()))
	return grepResult{}, searchError("SEARCH_FAILED", "ripgrep failed ("+err.Error()+")")
}

// grepNative searches like ripgrep's defaults: .gitignore honoured, hidden
// files, VCS directories and binary files skipped.
func grepNative(ctx context.Context, w *workspace.Workspace, hide *hider, root searchRoot, pattern, include string) (grepResult, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return grepResult{}, searchError("SEARCH_INVALID_PATTERN", "invalid pattern: "+err.Error())
	}
	var inc *globMatcher
	if include != "" {
		m, err := newGlobMatcher(include)
		if err != nil {
			return grepResult{}, searchError("SEARCH_INVALID_PATTERN", "invalid include glob: "+err.Error())
		}
		inc = &m
	}
	res := grepResult{Matches: []Match{}}
	grepFile := func(abs string, open func() (*os.File, error)) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if hide.hidden(abs) {
			return nil
		}
		data, err := readOpened(open)
		if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			return nil // unreadable or binary
		}
		rel := relPath(w, root.shown(abs))
		for n, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(line) == 0 || !re.Match(bytes.TrimRight(line, "\r\n")) {
				continue
			}
			text := "(line is not valid UTF-8)"
			if utf8.Valid(line) {
				text = previewLine(string(line))
			}
			res.add(Match{Path: rel, LineNumber: n + 1, Line: text})
		}
		return nil
	}
	info, err := os.Stat(root.Real)
	switch {
	case err != nil:
		return grepResult{}, searchError("SEARCH_FAILED", fmt.Sprintf("cannot search %q: %v", w.Abs(root.Path), err))
	case !info.IsDir():
		err = grepFile(root.Real, func() (*os.File, error) { return os.Open(root.Real) })
	default:
		err = walkFiles(root.Real, walkOptions{gitignore: true, skip: hide.skip()}, func(abs, rel string, _ fs.DirEntry, open func() (*os.File, error)) error {
			if inc != nil && !inc.match(rel) {
				return nil
			}
			return grepFile(abs, open)
		})
	}
	if ctx.Err() != nil {
		return grepResult{}, registry.NewError("SearchError", "SEARCH_ABORTED", "search aborted")
	}
	return res, err
}

// readOpened reads the whole of the file open opens, as os.ReadFile does.
func readOpened(open func() (*os.File, error)) ([]byte, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		b.Grow(int(fi.Size()) + 1) // one read more sees the end
	}
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// relPath shows a path relative to the workspace when it lies inside it,
// quoted as Go quotes strings (strconv.Quote) when it is not valid UTF-8:
// such a name would otherwise reach the model and the editor with its
// bytes replaced, naming another file or none.
func relPath(w *workspace.Workspace, p string) string {
	shown := p
	if !filepath.IsAbs(p) {
		shown = filepath.ToSlash(filepath.Clean(p))
	} else if rel, err := filepath.Rel(w.Cwd(), p); err == nil && !safepath.Escapes(rel) {
		shown = filepath.ToSlash(rel)
	}
	if !utf8.ValidString(shown) {
		return strconv.Quote(shown)
	}
	return shown
}

// groupMatches groups hits by file in first-seen order.
func groupMatches(ms []Match) []card.SearchFileMatches {
	out := []card.SearchFileMatches{}
	index := map[string]int{}
	for _, m := range ms {
		i, ok := index[m.Path]
		if !ok {
			i = len(out)
			index[m.Path] = i
			out = append(out, card.SearchFileMatches{Path: m.Path, Matches: []card.SearchLineMatch{}})
		}
		out[i].Matches = append(out[i].Matches, card.SearchLineMatch{LineNumber: m.LineNumber, Line: m.Line})
	}
	return out
}
