package permission

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxSettingsBytes bounds a settings file.
const maxSettingsBytes = 1 << 20

// ReadConfig reads a settings file, only if it is a regular file of at
// most a MiB: a FIFO that a command made in its place would otherwise
// hold a session's start for good (opening it waits for a writer), and a
// device or an endless file would feed it without end. Opened without
// blocking, then checked. A missing file's error is fs.ErrNotExist.
func ReadConfig(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSettingsBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxSettingsBytes)
	}
	return data, nil
}
