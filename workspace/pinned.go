package workspace

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// ErrNotRegular marks a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrDenied marks a refusal of a path this package makes itself: a
// pinned file that changed (Recheck), a process's secrets
// (ProcessSecret). Its message says why, for the person and the model.
var ErrDenied = errors.New("denied")

// denied is an ErrDenied with its message.
type denied struct{ msg string }

func (e denied) Error() string        { return e.msg }
func (e denied) Is(target error) bool { return target == ErrDenied }

// Pinned is a regular file on the local disk as a judgement saw it: its
// name with every symlink resolved, and its identity (device and inode).
//
// A Host that reads files elsewhere (an editor's buffers) asks for the
// file by Real, never by the path as written, so a symlink on that path
// swapped after the judgement (by a command the model runs beside the
// call) cannot lead the other reader to a file nobody judged; and it
// holds the answer to the file with [Pinned.Recheck], which catches a
// folder on Real swapped for a symlink while the other reader read.
type Pinned struct {
	Real     string
	dev, ino uint64
}

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
		if fd, err = openRetry(p.Real, unix.O_PATH|unix.O_CLOEXEC); err == nil {
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
	Fd    int    // O_PATH; the caller closes it
	Real  string // the name check judged
	Named bool   // /proc (or the path itself) named the file: Fd's link (/proc/self/fd/N) opens it
	st    unix.Stat_t
}

// OpenJudged opens path without reading it (O_PATH, with none of the
// side effects opening a device has), names the file it reached (by the
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
		if fd, err = openRetry(path, unix.O_PATH|unix.O_CLOEXEC); err != nil {
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
