package safepath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
		if d = filepath.Clean(d); d != "/" { // a workspace of the whole disk: commands may write anywhere anyway
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
	bad := append([]string{os.TempDir()}, distrusts...)
	mu.Unlock()
	if real, err := filepath.EvalSymlinks(bad[0]); err == nil {
		bad[0] = real
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // "", ".", bin/: wherever the bridge happens to be
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || under(real, bad) || under(resolvedDir(dir), bad) {
			continue
		}
		return p, nil
	}
	return "", &exec.Error{Name: name, Err: errNotFound}
}

var errNotFound = errors.New("executable file not found in $PATH outside the folders commands may write")

func resolvedDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// under reports whether path is one of dirs or inside one ("/" holds
// nothing here: a folder of the whole disk would leave no program to run).
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if d != "/" && (path == d || strings.HasPrefix(path, d+string(filepath.Separator))) {
			return true
		}
	}
	return false
}
