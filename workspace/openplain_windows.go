package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows gives Go no descriptor-relative open without symlinks, and
// none is needed: a file is opened by its path, and the name Windows
// gives the handle (GetFinalPathNameByHandle, with every junction and
// symlink on the way resolved) is what is judged, or compared with what
// was (winSameFile). A reparse point that leads elsewhere (winLink:
// symlinks and junctions) is taken for a symlink. Under Wine, what is
// tested here, a junction is not what NTFS makes (ROUGH_EDGES.md).

// GetFinalPathNameByHandle's flags (fileapi.h): the normalized name,
// with a drive letter.
const (
	fileNameNormalized = 0x0 // FILE_NAME_NORMALIZED
	volumeNameDOS      = 0x0 // VOLUME_NAME_DOS
)

// openHandle opens path by name with access (0: only to name and stat
// it, as O_PATH), following reparse points unless noFollow. A directory
// opens too (FILE_FLAG_BACKUP_SEMANTICS). Others may read, write and
// delete the file meanwhile, unless pin: then it cannot be renamed or
// deleted while the handle is open. The handle is the caller's to close.
func openHandle(path string, access uint32, noFollow, pin bool) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	if pin {
		share &^= windows.FILE_SHARE_DELETE
	}
	flags := uint32(windows.FILE_FLAG_BACKUP_SEMANTICS)
	if noFollow {
		flags |= windows.FILE_FLAG_OPEN_REPARSE_POINT
	}
	h, err := windows.CreateFile(p, access, share, nil, windows.OPEN_EXISTING, flags, 0)
	if err != nil {
		return windows.InvalidHandle, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return h, nil
}

// handleName is the name Windows gives the file h is open on, in the
// form paths are written in (winFinalName): false when it gives none
// with a drive letter or a share.
func handleName(h windows.Handle) (string, bool) {
	buf := make([]uint16, windows.MAX_PATH)
	for {
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), fileNameNormalized|volumeNameDOS)
		if err != nil || n == 0 {
			return "", false
		}
		if int(n) < len(buf) {
			return winFinalName(windows.UTF16ToString(buf[:n]))
		}
		buf = make([]uint16, n) // n counts the terminating NUL when the buffer was short
	}
}

// isLink reports whether h, opened without following (noFollow), is a
// reparse point that leads elsewhere (winLink).
func isLink(h windows.Handle) (bool, error) {
	var info struct{ FileAttributes, ReparseTag uint32 } // FILE_ATTRIBUTE_TAG_INFO
	if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&info)), 8); err != nil {
		return false, err
	}
	return winLink(info.FileAttributes, info.ReparseTag), nil
}

// errLink is the refusal of a path with a link on the way, where Linux's
// O_NOFOLLOW says ELOOP.
var errLink = errors.New("a symbolic link or junction is on the way")

// OpenNoFollow opens path (absolute) for reading, a directory too, with
// no link on the way: the file is opened without following a reparse
// point at its last name, refused (an error) when that name is a link
// (winLink), and refused too unless Windows names the file it opened
// path itself (winSameFile): a junction or symlink on a folder before
// it, or one swapped in, then led elsewhere. The walker opens what it
// visits with it, as it opens them with openat's O_NOFOLLOW elsewhere.
func OpenNoFollow(path string) (*os.File, error) {
	h, err := openHandle(path, windows.GENERIC_READ, true, false)
	if err != nil {
		return nil, err
	}
	link, err := isLink(h)
	if err == nil && link {
		err = errLink
	}
	if err == nil {
		if real, ok := handleName(h); !ok || !winSameFile(real, path) {
			err = errLink
		}
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// FileName is the name Windows gives the file f is open on (handleName).
func FileName(f *os.File) (string, bool) { return handleName(windows.Handle(f.Fd())) }

// evalSymlinks resolves the existing path p as Windows does when it
// opens it: junctions too, which filepath.EvalSymlinks takes for
// folders of their own (Go 1.23 and later).
func evalSymlinks(p string) (string, error) {
	h, err := openHandle(p, 0, false, false)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	if real, ok := handleName(h); ok {
		return real, nil
	}
	return filepath.EvalSymlinks(p)
}

// resolveOpen is Resolve of a path that exists (evalSymlinks); false
// for the walk otherwise.
func resolveOpen(p string) (string, bool) {
	real, err := evalSymlinks(p)
	return real, err == nil
}
