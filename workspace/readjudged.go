package workspace

import (
	"io"
	"os"
)

// ReadJudged reads the regular file path leads to, once check has judged
// it (Pin), at most limit+1 bytes so that a caller can tell a file over
// its cap, and then checks that path still leads to the file read
// (Pinned.Recheck). It returns the resolved path, what it read and the
// file's size; check's error is returned unchanged, and nothing is read.
func ReadJudged(path string, limit int, check func(real string) error) (real string, data []byte, size int64, err error) {
	pin, err := Pin(path, check)
	if err != nil {
		return "", nil, 0, err
	}
	fh, err := os.Open(pin.Real)
	if err != nil {
		return "", nil, 0, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, int64(limit)+1))
	if err != nil {
		return "", nil, 0, err
	}
	if err := pin.Recheck(path, "read"); err != nil {
		return "", nil, 0, err
	}
	size = int64(len(b))
	if info, err := fh.Stat(); err == nil {
		size = info.Size()
	}
	return pin.Real, b, size, nil
}
