package tools

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// openFile opens name for reading; errors name path. Windows has no
// FIFOs among files: a plain open.
func openFile(name, path string) (io.ReadCloser, error) {
	f, err := os.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}
