package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
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

// FileError is the contract's FS error for err, a failure to verb path:
// not found, permission denied, not a regular file, or an I/O error. A
// tool error (the path rules' or the permission decision's refusal) is
// returned as it is, and a refusal of package workspace (ErrDenied)
// becomes the permission error it words.
func FileError(err error, verb, path string) error {
	var te *registry.Error
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, workspace.ErrDenied):
		return registry.NewError("PermissionError", "FS_PERMISSION_DENIED", err.Error())
	case errors.Is(err, fs.ErrNotExist):
		return fsError("FS_NOT_FOUND", fmt.Sprintf("cannot %s %q: not found", verb, path))
	case errors.Is(err, fs.ErrPermission):
		return fsError("FS_PERMISSION_DENIED", fmt.Sprintf("cannot %s %q: permission denied", verb, path))
	case errors.Is(err, workspace.ErrNotRegular):
		return fsError("FS_NOT_REGULAR_FILE", fmt.Sprintf("cannot %s %q: not a regular file", verb, path))
	}
	return fsError("FS_IO_ERROR", fmt.Sprintf("cannot %s %q: %v", verb, path, err))
}
