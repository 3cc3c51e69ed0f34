package bridge

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// checkDirs refuses, as invalid params of method, a session's cwd or
// additional directories unless each is a NUL-free absolute path of an
// existing directory, symlinks followed: workspace containment, trust and
// the sandbox's rules are all computed on these paths, and mean nothing
// for a file or a path that is not there. The message names the problem
// and the path.
func checkDirs(method, cwd string, dirs []string) error {
	if err := checkDir(method, "cwd", cwd); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := checkDir(method, "additional directory", d); err != nil {
			return err
		}
	}
	return nil
}

// checkDir is checkDirs for one path; what names it in the message.
func checkDir(method, what, dir string) error {
	if strings.IndexByte(dir, 0) >= 0 {
		return invalidParams("%s: %s %q contains a NUL byte", method, what, dir)
	}
	if !filepath.IsAbs(dir) {
		return invalidParams("%s: %s must be an absolute path, got %q", method, what, dir)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// ENOTDIR: a name on the way is a file, so the path leads nowhere.
		return invalidParams("%s: %s %q does not exist", method, what, dir)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return invalidParams("%s: %s %q cannot be opened: %v", method, what, dir, err)
	case !fi.IsDir():
		return invalidParams("%s: %s %q is not a directory", method, what, dir)
	}
	return nil
}
