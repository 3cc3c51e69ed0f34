package safepath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
func LookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	mu.Lock()
	bad := withTemp(distrusts)
	mu.Unlock()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if writable(dir, bad) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
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
