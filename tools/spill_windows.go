package tools

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/windows"
)

// ownFolder says why fi is not a real folder: a reparse point (a
// junction or symlink) or a file is not. Ownership and who else may
// write are not judged on Windows (the mode bits say nothing there, and
// ACLs are not read): the temp folder is the user's own, under the
// profile (%LOCALAPPDATA%\Temp).
func ownFolder(fi fs.FileInfo) error {
	if !fi.IsDir() || fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return errors.New("not a folder")
	}
	return nil
}

// alive reports whether the process pid is running.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED // there, but another user's
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
