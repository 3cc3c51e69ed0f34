package workspace

import "errors"

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
// name with every symlink resolved, and its identity (device and inode;
// on Windows the volume's serial number and the file's index).
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
