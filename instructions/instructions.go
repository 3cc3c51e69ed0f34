package instructions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// MaxBytes caps one instructions file. A file past it is cut at the last
// line end within the cap and marked.
const MaxBytes = 32 * 1024

// Names are the instructions file names of a folder, in order of
// preference: the first that exists there is the folder's file.
var Names = []string{"AGENTS.md", "CLAUDE.md"}

// File is one instructions file read.
type File struct {
	Path      string // absolute, as resolved
	Text      string // at most MaxBytes of it, plus the marker when cut
	Truncated bool   // the file was longer than MaxBytes
	Size      int64  // the file's size in bytes
}

// ErrOutside is the refusal of a file that resolves outside the
// workspace.
var ErrOutside = errors.New("outside the workspace")

// Loader finds a session's instructions files. Its methods may be called
// concurrently.
type Loader struct {
	ws    *workspace.Workspace
	check func(real string) error
	mu    sync.Mutex
	seen  map[string]bool // folders looked in (resolved)
}

// New returns a loader for ws whose reads check judges (nil: none; the
// workspace bound holds whatever check says). check receives a resolved
// absolute path and returns an error when it may not be read.
func New(ws *workspace.Workspace, check func(real string) error) *Loader {
	return &Loader{ws: ws, check: check, seen: map[string]bool{}}
}

// Roots returns the files at the workspace roots, the first root first,
// and marks those folders seen.
func (l *Loader) Roots() []File {
	var out []File
	for _, r := range l.ws.Roots() {
		if f, ok := l.folder(r); ok {
			out = append(out, f)
		}
	}
	return out
}

// Touched returns the files of the folders from the root that holds path
// down to path's own folder (path itself when it is a folder) that were
// not looked in before, outermost first. A path outside the workspace has
// none.
func (l *Loader) Touched(path string) []File {
	real := l.ws.Resolve(path)
	if !l.ws.ContainsResolved(real) {
		return nil
	}
	dir := real
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		dir = filepath.Dir(real)
	}
	var chain []string
	for d := dir; l.ws.ContainsResolved(d); d = filepath.Dir(d) {
		chain = append(chain, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(chain)
	var out []File
	for _, d := range chain {
		if f, ok := l.folder(d); ok {
			out = append(out, f)
		}
	}
	return out
}

// folder reads dir's file unless dir was looked in before.
func (l *Loader) folder(dir string) (File, bool) {
	l.mu.Lock()
	if l.seen[dir] {
		l.mu.Unlock()
		return File{}, false
	}
	l.seen[dir] = true
	l.mu.Unlock()
	for _, name := range Names {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		f, err := Read(p, l.judge)
		if err != nil {
			return File{}, false // a refused or unreadable file is not replaced by the next name
		}
		return f, true
	}
	return File{}, false
}

// judge refuses what lies outside the workspace, then asks check.
func (l *Loader) judge(real string) error {
	if !l.ws.ContainsResolved(real) {
		return fmt.Errorf("%s: %w", real, ErrOutside)
	}
	if l.check != nil {
		return l.check(real)
	}
	return nil
}

// User returns the user's own AGENTS.md in the configuration folder dir;
// false when dir is "" or holds none.
func User(dir string) (File, bool) {
	if dir == "" {
		return File{}, false
	}
	f, err := Read(filepath.Join(dir, "AGENTS.md"), func(string) error { return nil })
	return f, err == nil
}

// Read reads the instructions file path (absolute) once check has judged
// the file it leads to, capped at MaxBytes; check's error is returned
// unchanged, and nothing is read.
func Read(path string, check func(real string) error) (File, error) {
	real, b, size, err := workspace.ReadJudged(path, MaxBytes, check)
	if err != nil {
		return File{}, err
	}
	f := File{Path: real, Size: size}
	text := string(b)
	if len(b) > MaxBytes {
		f.Truncated = true
		text = text[:MaxBytes]
		if i := strings.LastIndexByte(text, '\n'); i > 0 {
			text = text[:i+1]
		}
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		text += fmt.Sprintf("\n[instructions cut: the file is %d bytes; only the first %d are read]\n", f.Size, len(text))
	}
	f.Text = strings.TrimRight(text, "\n")
	return f, nil
}

// Block is how files reach the model: each headed by its path.
func Block(files []File) string {
	var b strings.Builder
	for i, f := range files {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<instructions path=%q>\n%s\n</instructions>", f.Path, f.Text)
	}
	return b.String()
}
