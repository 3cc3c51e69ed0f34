package workspace

import (
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// Pin judges the regular file path (absolute) leads to, as OpenJudged
// does, without reading it. Its errors are OpenJudged's.
func Pin(path string, check func(real string) error) (Pinned, error) {
	f, err := OpenJudged(path, check)
	if err != nil {
		return Pinned{}, err
	}
	defer f.File.Close()
	dev, ino, err := identity(windows.Handle(f.File.Fd()))
	if err != nil {
		return Pinned{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return Pinned{Real: f.Real, dev: dev, ino: ino}, nil
}

// identity is the file h is open on: its volume's serial number and its
// index on the volume.
func identity(h windows.Handle) (dev, ino uint64, err error) {
	var fi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &fi); err != nil {
		return 0, 0, err
	}
	return uint64(fi.VolumeSerialNumber), uint64(fi.FileIndexHigh)<<32 | uint64(fi.FileIndexLow), nil
}

// Recheck returns an error unless p.Real still names, with no link on
// the way (Windows names the file it opens p.Real: winSameFile), the
// file pinned. path is the path the call was given and verb what it
// does, for the message.
func (p Pinned) Recheck(path, verb string) error {
	h, err := openHandle(p.Real, 0, false, false)
	if err == nil {
		if real, ok := handleName(h); !ok || !winSameFile(real, p.Real) {
			err = errLink
		} else if dev, ino, ierr := identity(h); ierr != nil || dev != p.dev || ino != p.ino {
			err = fs.ErrNotExist
		}
		windows.CloseHandle(h)
	}
	if err != nil {
		return denied{fmt.Sprintf("cannot %s %q: once read, it no longer led to %s, the file this call was judged on; what was read was dropped", verb, path, p.Real)}
	}
	return nil
}

// Opened is a regular file OpenJudged opened.
type Opened struct {
	File *os.File // open for reading; the caller closes it
	Real string   // the name check judged
}

// OpenJudged opens path for reading (following links), names the file
// it reached (handleName; else the path as it resolves now), has check
// judge that name, and refuses anything but a regular file. When the
// path does not open, check judges it resolved before the error is
// told, as on Linux. Its errors are check's, unchanged; ErrNotRegular;
// and the system's (*fs.PathError).
func OpenJudged(path string, check func(string) error) (Opened, error) {
	file, err := os.Open(path)
	if err != nil {
		if cerr := check(Resolve(path)); cerr != nil {
			return Opened{}, cerr
		}
		return Opened{}, err
	}
	f := Opened{File: file}
	var ok bool
	if f.Real, ok = FileName(file); !ok {
		f.Real = Resolve(path)
	}
	err = check(f.Real)
	if err == nil {
		var fi fs.FileInfo
		if fi, err = file.Stat(); err != nil {
			err = &fs.PathError{Op: "stat", Path: path, Err: err}
		} else if !fi.Mode().IsRegular() {
			err = ErrNotRegular
		}
	}
	if err != nil {
		file.Close()
		return Opened{}, err
	}
	return f, nil
}
