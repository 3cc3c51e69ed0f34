package bridge

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dsh-bridge/dsh-bridge/acp"
)

// checkDirs refuses, as invalid params of method, a session's cwd or
// additional directories unless each is a NUL-free absolute path of an
// existing directory, symlinks followed: workspace containment, trust and
// the sandbox's rules are all computed on these paths, and mean nothing
// for a file or a path that is not there. The message names the problem
// and the path.
//
// It returns the folders the session uses: each as given (cleaned), or,
// when it has a ".." element, the folder the kernel reaches through it,
// every symlink resolved ("link/../x", link a symlink to /elsewhere/deep,
// is /elsewhere/x, where a lexical clean would make it x beside link).
// What was checked is then what the session works in.
func checkDirs(method, cwd string, dirs []string) (string, []string, error) {
	cwd, err := checkDir(method, "cwd", cwd)
	if err != nil {
		return "", nil, err
	}
	var used []string
	for _, d := range dirs {
		d, err := checkDir(method, "additional directory", d)
		if err != nil {
			return "", nil, err
		}
		used = append(used, d)
	}
	return cwd, used, nil
}

// checkDir is checkDirs for one path; what names it in the message.
func checkDir(method, what, dir string) (string, error) {
	if strings.IndexByte(dir, 0) >= 0 {
		return "", acp.InvalidParams("%s: %s %q contains a NUL byte", method, what, dir)
	}
	if !filepath.IsAbs(dir) {
		return "", acp.InvalidParams("%s: %s must be an absolute path, got %q", method, what, dir)
	}
	used := filepath.Clean(dir)
	if hasDotDot(dir) {
		real, err := filepath.EvalSymlinks(dir) // the kernel's ".."
		if err != nil {
			return "", dirError(method, what, dir, err)
		}
		used = real
	}
	fi, err := os.Stat(used)
	if err != nil {
		return "", dirError(method, what, dir, err)
	}
	if !fi.IsDir() {
		return "", acp.InvalidParams("%s: %s %q is not a directory", method, what, dir)
	}
	return used, nil
}

// dirError is checkDir's refusal of dir for err, from os.Stat or
// filepath.EvalSymlinks.
func dirError(method, what, dir string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// ENOTDIR: a name on the way is a file, so the path leads nowhere.
		return acp.InvalidParams("%s: %s %q does not exist", method, what, dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return acp.InvalidParams("%s: %s %q cannot be opened: %v", method, what, dir, err)
}

// hasDotDot reports whether the slash path p has a ".." element.
func hasDotDot(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}
