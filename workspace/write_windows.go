package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/windows"
)

// WriteFile replaces the text of the file path (absolute) leads to, once
// check accepted where the write lands, as on Linux: a symlink is
// followed and its target written, missing parent directories are made,
// the text goes to a temporary file in the same directory renamed over
// the target. check judges the target as it resolves before anything
// changes, and again the directory as opened: the directory is opened
// once, and held so that it cannot be renamed meanwhile, named for the
// second judgement by Windows (handleName), and the temporary file is
// created in it by that name and refused unless Windows names it there
// too (winSameFile): a folder on the way swapped for a junction cannot
// send the text elsewhere. The rename is by name, in the held directory.
// Windows has no mode bits but read-only: an existing file's ACL is not
// copied. check's errors are returned unchanged.
func WriteFile(path, content string, check func(string) error) error {
	dir, base, err := writeTarget(path, check)
	if err != nil {
		return err
	}
	dh, err := openHandle(dir, windows.FILE_LIST_DIRECTORY, false, true)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(dh)
	realDir, ok := handleName(dh)
	if !ok {
		realDir = Resolve(dir) // Windows gave no name: the directory as it resolves now
	}
	if err := check(filepath.Join(realDir, base)); err != nil {
		return err
	}
	tmp, f, err := createTempIn(realDir, "."+base+".dsh-")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp)
		}
	}()
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(realDir, base)); err != nil {
		return err
	}
	renamed = true
	return nil
}

// createTempIn creates a new file with a random name in the directory
// dir, refused unless Windows names the file made there (a junction
// swapped in on the way leads elsewhere).
func createTempIn(dir, prefix string) (string, *os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if real, ok := FileName(f); !ok || !winSameFile(real, name) {
			f.Close()
			os.Remove(name)
			return "", nil, &fs.PathError{Op: "open", Path: name, Err: errLink}
		}
		return name, f, nil
	}
	return "", nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}
