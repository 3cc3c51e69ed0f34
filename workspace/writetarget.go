package workspace

import (
	"os"
	"path/filepath"
)

// writeTarget is where a WriteFile of path lands: a symlink's target (the
// link stays a link), judged by check as it resolves now, its missing
// parent directories made. It returns that directory and the file's name.
func writeTarget(path string, check func(string) error) (dir, base string, err error) {
	target, err := linkTarget(path)
	if err != nil {
		return "", "", err
	}
	if err := check(Resolve(target)); err != nil {
		return "", "", err
	}
	dir, base = filepath.Dir(target), filepath.Base(target)
	return dir, base, os.MkdirAll(dir, 0o777)
}
