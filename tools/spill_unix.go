//go:build unix

package tools

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ownFolder says why fi is not a real folder of this user's alone.
func ownFolder(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0:
		return errors.New("not a folder")
	case !ok || int(st.Uid) != os.Getuid():
		return errors.New("another user's folder")
	case fi.Mode().Perm()&0o022 != 0:
		return errors.New("a folder others may write")
	}
	return nil
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
