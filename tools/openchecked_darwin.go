package tools

import (
	"context"
	"io"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// OpenChecked implements CheckedOpener on the local disk:
// workspace.OpenJudged opens the path for reading (macOS has no O_PATH),
// names the file it reached, has check judge that name and refuses
// anything but a regular file; the text is read from that descriptor, so
// it is the file judged whatever the path points to by then.
func (LocalHost) OpenChecked(_ context.Context, path, verb string, check func(string) error) (io.ReadCloser, error) {
	f, err := workspace.OpenJudged(path, check)
	if err != nil {
		return nil, FileError(err, verb, path)
	}
	return &fileReader{fd: f.Fd, path: path}, nil
}
