package tools

import (
	"fmt"
	"io/fs"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

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

// Pin judges the regular file path (absolute) leads to, as OpenChecked
// does, without reading it: check judges the name the kernel gives the
// file opened (O_PATH), and anything but a regular file is refused. Its
// errors are check's, unchanged, and the read tool's FS errors for verb.
func Pin(path, verb string, check func(real string) error) (Pinned, error) {
	f, err := openJudged(path, verb, check)
	if err != nil {
		return Pinned{}, err
	}
	unix.Close(f.fd)
	return Pinned{Real: f.real, dev: uint64(f.st.Dev), ino: uint64(f.st.Ino)}, nil
}

// Recheck returns an error unless p.Real still names, with no symlink on
// the way, the file pinned: what a read of p.Real elsewhere returned is
// then that file's, and is dropped on an error. path is the path the
// call was given, for the message.
func (p Pinned) Recheck(path, verb string) error {
	fd, err := openPlain(p.Real, 0)
	if err == unix.ENOSYS || err == unix.EPERM || err == errNotPlain {
		// No openat2: the name /proc gives the file Real leads to.
		if fd, err = openRetry(p.Real, unix.O_PATH|unix.O_CLOEXEC); err == nil {
			real, ok := fdPath("/proc/self/fd/" + strconv.Itoa(fd))
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
		return registry.NewError("PermissionError", "FS_PERMISSION_DENIED",
			fmt.Sprintf("cannot %s %q: once read, it no longer led to %s, the file this call was judged on; what was read was dropped", verb, path, p.Real))
	}
	return nil
}

// judgedFile is a file openJudged opened without reading it.
type judgedFile struct {
	fd    int         // O_PATH; the caller closes it
	real  string      // the name check judged
	named bool        // /proc (or the path itself) named the file: fd's link opens it
	st    unix.Stat_t // a regular file's
}

// openJudged opens path without reading it (O_PATH, with none of the
// side effects opening a device has), names the file it reached (by the
// path itself when no component of it is a symlink, openPlain; else the
// open follows every symlink and /proc names the file), has check judge
// that name, and refuses anything but a regular file (fstat).
//
// When the path does not open, or /proc cannot name the file, check
// judges the path resolved component by component (a missing file is
// judged through its nearest existing parent) before the error is told:
// a denied path is refused as denied, whether or not it exists.
func openJudged(path, verb string, check func(string) error) (judgedFile, error) {
	fd, err := openPlain(path, 0)
	plain := err == nil
	if !plain {
		if fd, err = openRetry(path, unix.O_PATH|unix.O_CLOEXEC); err != nil {
			if cerr := check(Resolve(path)); cerr != nil {
				return judgedFile{}, cerr
			}
			return judgedFile{}, fileError(&fs.PathError{Op: "open", Path: path, Err: err}, verb, path)
		}
	}
	f := judgedFile{fd: fd, real: path, named: true} // opened without a symlink: the path names it
	if !plain {
		if f.real, f.named = fdPath("/proc/self/fd/" + strconv.Itoa(fd)); !f.named {
			f.real = Resolve(path) // no /proc: judge the path as resolved now
		}
	}
	err = check(f.real)
	if err == nil {
		if err = unix.Fstat(fd, &f.st); err != nil {
			err = fileError(&fs.PathError{Op: "stat", Path: path, Err: err}, verb, path)
		} else if f.st.Mode&unix.S_IFMT != unix.S_IFREG {
			err = fileError(errNotRegular, verb, path)
		}
	}
	if err != nil {
		unix.Close(fd)
		return judgedFile{}, err
	}
	return f, nil
}
