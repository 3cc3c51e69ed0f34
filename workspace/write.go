//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// WriteFile replaces the text of the file path (absolute) leads to, once
// check accepted where the write lands. A symlink is followed and its
// target written (the link stays a link, a dangling one makes its
// target); missing parent directories are made; the text goes to a
// temporary file in the same directory renamed over the target, so a
// reader never sees half a file and a failed write loses nothing; an
// existing file keeps its mode, and a new one gets 0666 less the umask.
//
// check judges the target as it resolves before anything changes, and
// again the directory as opened: the directory is opened once (oPath),
// and named for the second judgement by its own path when no component
// of it is a symlink (openPlain), else by /proc (without /proc, the
// directory as it resolves then), and the temporary file is created, and
// renamed, through that descriptor, so it lands in the directory judged
// whatever its path leads to by then. check's errors are returned
// unchanged.
func WriteFile(path, content string, check func(string) error) error {
	dir, base, err := writeTarget(path, check)
	if err != nil {
		return err
	}
	dfd, err := openPlain(dir, unix.O_DIRECTORY)
	plain := err == nil
	realDir := dir // opened without a symlink: dir names it
	if !plain {
		if dfd, err = openRetry(dir, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC); err != nil {
			return &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		var ok bool
		if realDir, ok = NameOf(dfd); !ok {
			realDir = Resolve(dir) // no /proc: the directory as it resolves now
		}
	}
	defer unix.Close(dfd)
	if err := check(filepath.Join(realDir, base)); err != nil {
		return err
	}
	var st unix.Stat_t
	existing := unix.Fstatat(dfd, base, &st, 0) == nil
	name, f, err := createTempAt(dfd, realDir, "."+base+".dsh-")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			unix.Unlinkat(dfd, name, 0)
		}
	}()
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if existing {
		if err := f.Chmod(fs.FileMode(st.Mode) & fs.ModePerm); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := unix.Renameat(dfd, name, dfd, base); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(realDir, name), New: filepath.Join(realDir, base), Err: err}
	}
	renamed = true
	return nil
}

// createTempAt creates a new file with a random name in the directory
// dfd (named dirName, for errors), mode 0666 less the umask, without
// following a symlink planted under that name.
func createTempAt(dfd int, dirName, prefix string) (string, *os.File, error) {
	for range 100 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		fd, err := unix.Openat(dfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o666)
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return "", nil, &fs.PathError{Op: "open", Path: filepath.Join(dirName, name), Err: err}
		}
		return name, os.NewFile(uintptr(fd), filepath.Join(dirName, name)), nil
	}
	return "", nil, fmt.Errorf("cannot create a temporary file in %s", dirName)
}
