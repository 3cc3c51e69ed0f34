//go:build unix

package workspace

import (
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// Pin judges the regular file path (absolute) leads to, as OpenJudged
// does, without reading it: check judges the name the kernel gives the
// file opened (O_PATH), and anything but a regular file is refused. Its
// errors are OpenJudged's.
func Pin(path string, check func(real string) error) (Pinned, error) {
	f, err := OpenJudged(path, check)
	if err != nil {
		return Pinned{}, err
	}
	unix.Close(f.Fd)
	return Pinned{Real: f.Real, dev: uint64(f.st.Dev), ino: uint64(f.st.Ino)}, nil
}

// Recheck returns an error unless p.Real still names, with no symlink on
// the way, the file pinned: what a read of p.Real elsewhere returned is
// then that file's, and is dropped on an error (an ErrDenied). path is
// the path the call was given and verb what it does, for the message.
func (p Pinned) Recheck(path, verb string) error {
	fd, err := openPlain(p.Real, 0)
	if err == unix.ENOSYS || err == unix.EPERM || err == errNotPlain {
		// No openat2: the name /proc gives the file Real leads to.
		if fd, err = openRetry(p.Real, oPath|unix.O_CLOEXEC); err == nil {
			real, ok := NameOf(fd)
			if !ok {
				real = Resolve(p.Real)
			}
			if real != p.Real {
				unix.Close(fd)
				err = unix.ELOOP
			}
		}
	}
	if err == nil {
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		unix.Close(fd)
		if err == nil && (uint64(st.Dev) != p.dev || uint64(st.Ino) != p.ino) {
			err = unix.ESTALE
		}
	}
	if err != nil {
		return denied{fmt.Sprintf("cannot %s %q: once read, it no longer led to %s, the file this call was judged on; what was read was dropped", verb, path, p.Real)}
	}
	return nil
}

// Opened is a regular file OpenJudged opened without reading it.
type Opened struct {
	Fd    int    // O_PATH on Linux, open for reading on macOS (oPath); the caller closes it
	Real  string // the name check judged
	Named bool   // the kernel (or the path itself) named the file; on Linux Fd's link (/proc/self/fd/N) then opens it
	st    unix.Stat_t
}

// OpenJudged opens path without reading it (on Linux O_PATH, with none
// of the side effects opening a device has; on macOS for reading, once a
// stat found a regular file: oPath), names the file it reached (by the
// path itself when no component of it is a symlink, openPlain; else the
// open follows every symlink and /proc names the file), has check judge
// that name, and refuses anything but a regular file (fstat).
//
// When the path does not open, or /proc cannot name the file, check
// judges the path resolved component by component (a missing file is
// judged through its nearest existing parent) before the error is told:
// a denied path is refused as denied, whether or not it exists.
//
// Its errors are check's, unchanged; ErrNotRegular; and the system's
// (*fs.PathError).
func OpenJudged(path string, check func(string) error) (Opened, error) {
	fd, err := openPlain(path, 0)
	plain := err == nil
	if !plain {
		if fd, err = openRetry(path, oPath|unix.O_CLOEXEC); err != nil {
			if cerr := check(Resolve(path)); cerr != nil {
				return Opened{}, cerr
			}
			return Opened{}, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
	f := Opened{Fd: fd, Real: path, Named: true} // opened without a symlink: the path names it
	if !plain {
		if f.Real, f.Named = NameOf(fd); !f.Named {
			f.Real = Resolve(path) // no /proc: judge the path as resolved now
		}
	}
	err = check(f.Real)
	if err == nil {
		if err = unix.Fstat(fd, &f.st); err != nil {
			err = &fs.PathError{Op: "stat", Path: path, Err: err}
		} else if f.st.Mode&unix.S_IFMT != unix.S_IFREG {
			err = ErrNotRegular
		}
	}
	if err != nil {
		unix.Close(fd)
		return Opened{}, err
	}
	return f, nil
}
