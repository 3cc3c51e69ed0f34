package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// CheckedOpener is a Host that opens a regular file for reading and has
// check judge the file it opened: the path the kernel gives for the open
// descriptor, not a resolution made a moment before the open. A symlink
// swapped between the judgement and the open (by a command the model
// runs beside the read) then cannot lead the read to a denied file.
// Path-rule guards use it when the host has it.
//
// OpenChecked calls check at most once, before any of the file is read,
// and returns its error unchanged; its other errors are the read tool's
// FS errors for verb ("read"). A Host that embeds LocalHost but reads
// files elsewhere must override it, as it overrides OpenText.
type CheckedOpener interface {
	OpenChecked(ctx context.Context, path, verb string, check func(real string) error) (io.ReadCloser, error)
}

// OpenChecked implements CheckedOpener on the local disk, in four or five
// system calls: openJudged opens the path without reading it, names the
// file it reached, has check judge that name and refuses anything but a
// regular file; the text is then opened through the descriptor itself
// (/proc/self/fd/N), so it is the file judged whatever the path points
// to by then.
func (LocalHost) OpenChecked(_ context.Context, path, verb string, check func(string) error) (io.ReadCloser, error) {
	f, err := openJudged(path, verb, check)
	if err != nil {
		return nil, err
	}
	defer unix.Close(f.fd)
	text := "/proc/self/fd/" + strconv.Itoa(f.fd)
	if !f.named {
		text = path
	}
	return openFile(text, path)
}

// errNotRegular marks a path that is not a regular file.
var errNotRegular = errors.New("not a regular file")

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

// openRetry is open(2) retried on EINTR.
func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// fileError is the contract's FS error for err, a failure to verb path:
// not found, permission denied, not a regular file, or an I/O error. A
// tool error (the path rules' or the permission decision's refusal) is
// returned as it is.
func fileError(err error, verb, path string) error {
	var te *registry.Error
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return fsError("FS_NOT_FOUND", fmt.Sprintf("cannot %s %q: not found", verb, path))
	case errors.Is(err, fs.ErrPermission):
		return fsError("FS_PERMISSION_DENIED", fmt.Sprintf("cannot %s %q: permission denied", verb, path))
	case errors.Is(err, errNotRegular):
		return fsError("FS_NOT_REGULAR_FILE", fmt.Sprintf("cannot %s %q: not a regular file", verb, path))
	}
	return fsError("FS_IO_ERROR", fmt.Sprintf("cannot %s %q: %v", verb, path, err))
}
