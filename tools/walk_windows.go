package tools

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// openAt opens name in dir (abs) for reading, a directory when isDir,
// with no link on the way (workspace.OpenNoFollow): Windows gives Go no
// open relative to a directory's handle, so abs is opened by name and
// refused unless Windows names what it opened abs.
func openAt(_ *os.File, _ string, abs string, isDir bool) (*os.File, error) {
	f, err := workspace.OpenNoFollow(abs)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || fi.IsDir() != isDir {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: abs, Err: syscall.ENOTDIR}
	}
	return f, nil
}
