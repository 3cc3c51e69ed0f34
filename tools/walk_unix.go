//go:build unix

package tools

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openAt opens name in dir for reading without following a symlink (a
// directory when isDir); abs names the file.
func openAt(dir *os.File, name, abs string, isDir bool) (*os.File, error) {
	flags := 0
	if isDir {
		flags = unix.O_DIRECTORY
	}
	for {
		fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "openat", Path: abs, Err: err}
		}
		return os.NewFile(uintptr(fd), abs), nil
	}
}
