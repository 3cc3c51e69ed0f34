//go:build linux

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openPlain opens path (O_PATH, with extra flags) only if no component of
// it is a symlink (openat2's RESOLVE_NO_SYMLINKS, which also refuses
// /proc's magic links): the file it opens is then named by path itself,
// and /proc need not be asked (a read of /proc/self/fd costs more than
// the open). path must be absolute and clean, so that no ".." can mean
// something else after a symlink.
//
// err is nil when it opened, errNotPlain for a relative or unclean path,
// and otherwise the kernel's answer: ELOOP when a component is a symlink
// (dangling or not), ENOENT when a name on the way is missing (every
// component before it then being a real folder), ENOSYS or EPERM when
// the kernel has no openat2 (Linux before 5.6, or a seccomp filter that
// refuses it). On any error the caller resolves the path its slower way,
// which also reports the error.
//
// The descriptor, when err is nil, is the caller's to close.
func openPlain(path string, flags uint64) (fd int, err error) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return -1, errNotPlain
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC | flags, Resolve: unix.RESOLVE_NO_SYMLINKS}
	for range 3 { // EINTR and EAGAIN (a rename raced the walk) are tried again, a few times
		fd, err = unix.Openat2(unix.AT_FDCWD, path, &how)
		if err != unix.EINTR && err != unix.EAGAIN {
			break
		}
	}
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// errNotPlain is openPlain's refusal of a relative or unclean path.
var errNotPlain = errors.New("not an absolute, clean path")

// NameOf is the name the kernel gives the file the open descriptor fd
// leads to (/proc/self/fd/N): false when /proc is not mounted or the
// answer is not a plain path.
func NameOf(fd int) (string, bool) { return fdPath("/proc/self/fd/" + strconv.Itoa(fd)) }

// fdPath is where the descriptor link self (/proc/self/fd/N) points:
// false when /proc is not mounted or the answer is not a plain path (a
// file unlinked meanwhile reads "… (deleted)"; a name may also end so).
func fdPath(self string) (string, bool) {
	var buf [unix.PathMax]byte
	n, err := unix.Readlink(self, buf[:])
	if err != nil || n == 0 || n == len(buf) || buf[0] != '/' {
		return "", false
	}
	real := string(buf[:n])
	if strings.HasSuffix(real, " (deleted)") {
		return "", false
	}
	return real, true
}

// oPath opens a file without reading it (O_PATH): none of the side
// effects opening a device or a FIFO has.
const oPath = unix.O_PATH

// FileName is the name the kernel gives the file f is open on (NameOf).
func FileName(f *os.File) (string, bool) { return NameOf(int(f.Fd())) }

// evalSymlinks is the walk's resolution of an existing path.
func evalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }

// resolveOpen resolves a path through the kernel. A path with no symlink
// on it is its own answer (openPlain, two system calls), and so is one
// that has none up to a name that is missing: nothing on it leads
// elsewhere, and a file made there is made at p (openPlain's ENOENT; a
// symlink, even a dangling one, is ELOOP instead). Otherwise it opens p
// without reading it (O_PATH, following every symlink) and asks /proc
// where the descriptor points, three system calls where EvalSymlinks
// makes one lstat per component. False (so the walk decides) when p does
// not exist past a symlink, /proc is not mounted, or the answer is not a
// plain path.
func resolveOpen(p string) (string, bool) {
	switch fd, err := openPlain(p, 0); err {
	case nil:
		unix.Close(fd)
		return p, true // no symlink on the way: p is its own name
	case unix.ENOENT:
		return p, true // no symlink up to the missing name, which is none either
	}
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	return NameOf(fd)
}

// openRetry is open(2) retried on EINTR.
func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
