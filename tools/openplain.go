package tools

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openPlain opens path (O_PATH, with extra flags) only if no component of
// it is a symlink (openat2's RESOLVE_NO_SYMLINKS, which also refuses
// /proc's magic links): the file it opens is then named by path itself,
// and /proc need not be asked (a read of /proc/self/fd costs more than
// the open). path must be absolute and clean, so that no ".." can mean
// something else after a symlink. ok is false when it is not, when a
// component is a symlink, when the path does not open, or when the
// kernel has no openat2 (Linux before 5.6, or a seccomp filter that
// refuses it): the caller then resolves the path its slower way, which
// also reports the error.
//
// The descriptor, when ok, is the caller's to close.
func openPlain(path string, flags uint64) (fd int, ok bool) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return -1, false
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC | flags, Resolve: unix.RESOLVE_NO_SYMLINKS}
	for range 3 { // EINTR and EAGAIN (a rename raced the walk) are tried again, a few times
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
		switch err {
		case nil:
			return fd, true
		case unix.EINTR, unix.EAGAIN:
			continue
		}
		return -1, false
	}
	return -1, false
}
