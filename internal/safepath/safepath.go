package safepath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

var (
	mu        sync.Mutex
	distrusts []string // resolved
)

// Distrust adds folders sandboxed commands may write (a session's
// roots), for the life of the process.
func Distrust(dirs ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, d := range dirs {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		// A workspace of the whole disk: commands may write anywhere anyway.
		if d = filepath.Clean(d); d != "/" && !slices.Contains(distrusts, d) {
			distrusts = append(distrusts, d)
		}
	}
}

// LookPath is exec.LookPath over $PATH's absolute entries that are not
// in the temp folder or a distrusted folder (their symlinks resolved,
// the program's own too). A name with a slash is returned as it is: its
// caller chose it.
//
// On Windows a name is tried as exec.LookPath tries it there: as given
// when it has an extension, then with each of %PATHEXT%'s (rg is rg.exe);
// a backslash makes it a path too; and a regular file is a program
// (Windows has no mode bits to say otherwise).
func LookPath(name string) (string, error) {
	if strings.Contains(name, "/") || runtime.GOOS == "windows" && strings.Contains(name, `\`) {
		return name, nil
	}
	mu.Lock()
	bad := withTemp(distrusts)
	mu.Unlock()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if writable(dir, bad) {
			continue
		}
		p, ok := Program(dir, name)
		if !ok {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || under(real, bad) {
			continue
		}
		return p, nil
	}
	return "", &exec.Error{Name: name, Err: errNotFound}
}

// Program returns the program name names in dir, and whether there is
// one: the first of Candidates(name, runtime.GOOS, %PATHEXT%) that is a
// regular file, executable by its mode bits where the platform has them.
func Program(dir, name string) (string, bool) {
	for _, c := range Candidates(name, runtime.GOOS, os.Getenv("PATHEXT")) {
		p := filepath.Join(dir, c)
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return p, true
		}
	}
	return "", false
}

// Candidates lists the file names a program called name may have on
// goos, in the order they are tried: name alone, except on Windows,
// where (as os/exec's LookPath there) name comes first only when it has
// an extension, then name with each extension of pathext (%PATHEXT%:
// ";"-separated, case folded, a missing "." added; .com, .exe, .bat and
// .cmd when empty).
func Candidates(name, goos, pathext string) []string {
	if goos != "windows" {
		return []string{name}
	}
	var out []string
	if i := strings.LastIndexAny(name, `:\/.`); i >= 0 && name[i] == '.' {
		out = append(out, name)
	}
	exts := strings.Split(strings.ToLower(pathext), ";")
	if strings.TrimSpace(pathext) == "" {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	for _, e := range exts {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		out = append(out, name+e)
	}
	return out
}

// Writable lists the folders of path (a $PATH) that commands sandboxed in
// roots may write: relative ones ("", ".", bin/: wherever the process
// happens to be), and those in the temp folder or in a root, symlinks
// resolved. A program put there runs as the person in a shell with this
// $PATH; LookPath takes none from them.
func Writable(path string, roots []string) []string {
	bad := withTemp(roots)
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "." // an empty entry is the working directory
		}
		if writable(dir, bad) && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// withTemp is dirs and the temp folder, resolved, in a new slice.
func withTemp(dirs []string) []string {
	tmp := os.TempDir()
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	return append([]string{tmp}, dirs...)
}

// writable reports whether $PATH entry dir is relative or, resolved, in
// one of bad (resolved).
func writable(dir string, bad []string) bool {
	return !filepath.IsAbs(dir) || under(resolvedDir(dir), bad)
}

var errNotFound = errors.New("executable file not found in $PATH outside the folders commands may write")

func resolvedDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// Within reports whether the clean absolute path is dir or lies below it;
// "/" holds every path. It builds nothing: the permission rules ask it for
// every path of every call.
func Within(path, dir string) bool {
	return dir == string(filepath.Separator) ||
		strings.HasPrefix(path, dir) && (len(path) == len(dir) || path[len(dir)] == filepath.Separator)
}

// Escapes reports whether rel, a path filepath.Rel returned, climbs out of
// its base: it is ".." or starts with ".." and a separator. A name that
// merely begins with two dots ("..x") stays inside.
func Escapes(rel string) bool { return escapes(rel, filepath.Separator) }

// escapes is Escapes for the platform whose separator is sep (Windows
// accepts "/" too).
func escapes(rel string, sep byte) bool {
	if rel == ".." {
		return true
	}
	if len(rel) < 3 || rel[:2] != ".." {
		return false
	}
	return rel[2] == sep || rel[2] == '/'
}

// under reports whether path is one of dirs or inside one ("/" holds
// nothing here: a folder of the whole disk would leave no program to run).
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if d != "/" && Within(path, d) {
			return true
		}
	}
	return false
}
