package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// macOS has neither O_PATH nor openat2 nor /proc. What stands in for
// them here:
//   - a judged file is opened for reading (oPath), once a stat of its path
//     found it regular (opensQuietly), so a device or FIFO is refused
//     before it is opened, and one swapped in after that stat opens
//     without blocking and is refused by the fstat after the judgement;
//   - "no symlink anywhere on the path" is open(2)'s O_NOFOLLOW_ANY
//     (macOS 11 and later; Go 1.26 needs macOS 12): ELOOP as with
//     openat2's RESOLVE_NO_SYMLINKS (open(2) man page, macOS 14 SDK,
//     read 2026-12-05);
//   - a descriptor is named by fcntl(F_GETPATH), where Linux asks
//     /proc/self/fd;
//   - Resolve walks with lstat (the kernel's one-call answer needs an
//     open, and opening a device to resolve its path has side effects).
//
// None of this has run on a Mac (ROUGH_EDGES.md).

// oPath is how a judged file is opened: for reading, without blocking
// on a FIFO or taking a terminal as the controlling one.
const oPath = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY

// errNotPlain is openPlain's refusal of a relative or unclean path.
var errNotPlain = errors.New("not an absolute, clean path")

// openPlain opens path (oPath, with extra flags) only if no component of
// it is a symlink (O_NOFOLLOW_ANY); its answers are Linux's openPlain's:
// ELOOP for a symlink on the way, ENOENT for a missing name before any.
// The descriptor, when err is nil, is the caller's to close.
func openPlain(path string, flags uint64) (int, error) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return -1, errNotPlain
	}
	return openRetry(path, oPath|unix.O_CLOEXEC|unix.O_NOFOLLOW_ANY|int(flags))
}

// openRetry is open(2) retried on EINTR. A file opened without
// O_DIRECTORY is stat'ed first and refused (ErrNotRegular) unless it
// opens quietly: macOS cannot open without reading.
func openRetry(path string, flags int) (int, error) {
	if flags&unix.O_DIRECTORY == 0 {
		var st unix.Stat_t
		if err := unix.Stat(path, &st); err == nil && !opensQuietly(uint32(st.Mode)) {
			return -1, ErrNotRegular
		}
	}
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// NameOf is the name the kernel gives the file the open descriptor fd
// leads to (fcntl F_GETPATH): false when it gives none, or not a plain
// path.
func NameOf(fd int) (string, bool) {
	var buf [unix.PathMax]byte
	for {
		_, _, errno := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), unix.F_GETPATH, uintptr(unsafe.Pointer(&buf[0])))
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return "", false
		}
		break
	}
	n := bytes.IndexByte(buf[:], 0)
	if n <= 0 || buf[0] != '/' {
		return "", false
	}
	return string(buf[:n]), true
}

// FileName is the name the kernel gives the file f is open on (NameOf).
func FileName(f *os.File) (string, bool) { return NameOf(int(f.Fd())) }

// evalSymlinks is the walk's resolution of an existing path.
func evalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }

// resolveOpen leaves every path to the walk (see the top of this file).
func resolveOpen(string) (string, bool) { return "", false }
