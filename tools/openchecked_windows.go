package tools

import (
	"context"
	"io"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// OpenChecked implements CheckedOpener on the local disk:
// workspace.OpenJudged opens the path for reading, has check judge the
// name Windows gives the file it opened and refuses anything but a
// regular file; the text is read from that handle, so it is the file
// judged whatever the path points to by then.
func (LocalHost) OpenChecked(_ context.Context, path, verb string, check func(string) error) (io.ReadCloser, error) {
	f, err := workspace.OpenJudged(path, check)
	if err != nil {
		return nil, FileError(err, verb, path)
	}
	return f.File, nil
}
