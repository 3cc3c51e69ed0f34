package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
)

// Workspace is a session's working directory plus its additional
// directories: the places tools may read and write without asking.
type Workspace struct {
	cwd   string
	roots []string // symlink-resolved, cleaned
	form  Form     // how its platform compares paths
}

// New returns the workspace of cwd (absolute) and extra directories
// (absolute, or relative to cwd), on this machine's platform: its paths
// compare as FormOf(runtime.GOOS) says (case-folded on macOS and
// Windows). The platform's default is taken rather than a probe of the
// volume: a probe needs a name to create or a second spelling of one
// that exists, and a workspace may be read-only.
func New(cwd string, extra ...string) (*Workspace, error) {
	return NewOn(runtime.GOOS, cwd, extra...)
}

// NewOn is New with the platform named (a GOOS value): the paths are
// still this machine's, but rules are judged against them as goos
// compares paths (Form). Tests use it to judge as darwin or windows.
func NewOn(goos, cwd string, extra ...string) (*Workspace, error) {
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("workspace directory %q is not absolute", cwd)
	}
	w := &Workspace{cwd: filepath.Clean(cwd), form: FormOf(goos)}
	for _, d := range append([]string{cwd}, extra...) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		w.roots = append(w.roots, Resolve(filepath.Clean(d)))
	}
	return w, nil
}

// Form is how the workspace's platform compares paths: rules about paths
// (permission rules, protected files, denied trees) match Form().Of of
// a resolved path, case-folded where the file system folds case.
// Containment (Contains, ContainsResolved) is exact: a differently cased
// spelling is outside, and asks.
func (w *Workspace) Form() Form { return w.form }

// Cwd returns the workspace directory.
func (w *Workspace) Cwd() string { return w.cwd }

// Abs returns p as an absolute, cleaned path: relative paths are resolved
// against the workspace directory, and on Windows a path rooted without a
// drive (\x, /tmp) is on the workspace directory's drive, and one
// relative to the workspace directory's drive (C:x) is relative to the
// workspace directory, as Win32 takes them (the current drive's current
// folder is the current folder). Symlinks are not followed (this is the path shown to people and
// models).
func (w *Workspace) Abs(p string) string { return AbsIn(w.form.GOOS, w.cwd, p) }

// AbsIn is Workspace.Abs for a workspace directory cwd judged as goos
// (runtime.GOOS for the paths of this machine): what views show and what
// the tools touch are the same cleaned path.
func AbsIn(goos, cwd, p string) string {
	if goos == "windows" {
		p = onCwdDrive(p, cwd)
	}
	switch {
	case filepath.IsAbs(p):
	case rootedOnDrive(p):
		p = filepath.VolumeName(cwd) + p
	default:
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// rootedOnDrive reports whether p starts at the root of the current drive:
// a separator first and no volume. Only Windows has such paths; elsewhere
// they are absolute.
func rootedOnDrive(p string) bool {
	return p != "" && os.IsPathSeparator(p[0]) && filepath.VolumeName(p) == "" && !filepath.IsAbs(p)
}

// Contains reports whether p, with every symlink resolved, lies inside one
// of the workspace's directories. A symlink inside the workspace that
// points outside is outside; ".." segments are resolved first; comparison
// is exact (on a case-insensitive file system a differently cased path
// resolves through the symlink walk to the same name only if it exists).
func (w *Workspace) Contains(p string) bool {
	return w.ContainsResolved(w.Resolve(p))
}

// Resolve returns p (absolute, or relative to the workspace directory)
// with every symlink of its longest existing prefix resolved: the file a
// call would really touch.
func (w *Workspace) Resolve(p string) string { return Resolve(w.Abs(p)) }

// ResolveAsWritten resolves p as the kernel does when a program opens it
// (a shell's redirect, cd, a program named by its path): relative to the
// workspace directory, and with each ".." taken after the symlink before
// it, where Resolve(Abs(p)) takes it first ("out/../x", out a symlink to
// /elsewhere/deep, is /elsewhere/x, not x in the workspace). Past the
// first missing name the rest is joined as written: the kernel would not
// go through a missing folder.
func (w *Workspace) ResolveAsWritten(p string) string {
	if w.form.GOOS == "windows" {
		p = onCwdDrive(p, w.cwd)
	}
	if !strings.Contains(p, "..") {
		return Resolve(w.Abs(p)) // no ".." to take: the clean path names the same file
	}
	p = filepath.FromSlash(p) // Windows takes "/" as a separator too
	switch {
	case filepath.IsAbs(p):
	case rootedOnDrive(p):
		p = filepath.VolumeName(w.cwd) + p
	default:
		p = w.cwd + string(filepath.Separator) + p
	}
	vol := filepath.VolumeName(p)
	parts := strings.Split(p[len(vol):], string(filepath.Separator))
	dest := vol + string(filepath.Separator)
	for i, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			dest = filepath.Dir(dest) // dest has its symlinks resolved: this is the kernel's ".."
			continue
		}
		next := filepath.Join(dest, part)
		if _, err := os.Lstat(next); err != nil {
			return filepath.Join(append([]string{Resolve(next)}, parts[i+1:]...)...)
		}
		dest = Resolve(next)
	}
	return dest
}

// Roots returns the workspace's directories, symlinks resolved; the
// first is the working directory's.
func (w *Workspace) Roots() []string { return append([]string(nil), w.roots...) }

// ContainsResolved reports whether an already resolved path lies in a
// root.
func (w *Workspace) ContainsResolved(real string) bool {
	for _, r := range w.roots {
		if safepath.Within(real, r) {
			return true
		}
	}
	return false
}

// Resolve resolves symlinks in the longest existing prefix of the absolute
// path p and appends the rest: a file that does not exist yet resolves
// through its nearest existing parent. A dangling symlink resolves
// through its target.
func Resolve(p string) string {
	return resolve(p, 0)
}

func resolve(p string, depth int) string {
	if real, ok := resolveOpen(p); ok {
		return real
	}
	return resolveWalk(p, depth)
}

// resolveWalk is resolve the slow way, component by component, for the
// paths the kernel's answers leave open: it finds the longest existing
// prefix, and follows a dangling symlink to where writing through it
// would create its target.
func resolveWalk(p string, depth int) string {
	rest := ""
	for cur := p; ; {
		if real, err := evalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		} else if !errors.Is(err, os.ErrNotExist) {
			return filepath.Join(cur, rest) // unreadable: judge the path as written
		}
		// A dangling symlink: writing through it creates its target.
		if target, err := os.Readlink(cur); err == nil && depth < 40 {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return filepath.Join(resolve(filepath.Clean(target), depth+1), rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// linkTarget follows path's symlinks, dangling ones included, to the file
// a write must change.
func linkTarget(path string) (string, error) {
	for hops := 0; hops < 40; hops++ {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}
