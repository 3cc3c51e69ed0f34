package jsvm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// vmData reads the VmData line (kB) of a /proc/<pid>/status, in bytes.
func vmData(status io.ReaderAt) (uint64, error) {
	sc := bufio.NewScanner(io.NewSectionReader(status, 0, 1<<20))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmData:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.Join(errors.New("no VmData in the process status"), sc.Err())
}
