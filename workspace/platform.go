package workspace

import "strings"

// The decisions the per-platform opens make, as pure functions: each
// platform's file calls them, and they are tested on every platform.

// opensQuietly reports whether a file of the stat mode mode (S_IFMT
// bits) can be opened for reading with no side effect and without
// blocking: a regular file or a directory. macOS has no O_PATH, so a
// judged file is opened for reading, and anything else (a FIFO, a
// device, a socket) is refused before it is opened.
func opensQuietly(mode uint32) bool {
	const ifmt, ifreg, ifdir = 0o170000, 0o100000, 0o040000 // POSIX <sys/stat.h>, the same on Linux and macOS
	switch mode & ifmt {
	case ifreg, ifdir:
		return true
	}
	return false
}

// Windows file attributes and reparse tags (Microsoft, "File Attribute
// Constants" and "Reparse Point Tags", learn.microsoft.com, read
// 2026-12-05).
const (
	winAttrReparsePoint = 0x400      // FILE_ATTRIBUTE_REPARSE_POINT
	winTagNameSurrogate = 0x20000000 // bit 29: the point names another file (IsReparseTagNameSurrogate)
	winTagMountPoint    = 0xA0000003 // IO_REPARSE_TAG_MOUNT_POINT: a junction or a volume mount
	winTagSymlink       = 0xA000000C // IO_REPARSE_TAG_SYMLINK
)

// winLink reports whether a Windows file with attributes attrs and
// reparse tag tag (FILE_ATTRIBUTE_TAG_INFO) leads elsewhere, and so is
// taken for a symlink: a reparse point whose tag is a name surrogate
// (symlinks, junctions and volume mount points, WSL's symlinks, and any
// other tag that names another file). Other reparse points (a
// deduplicated file, a cloud file's placeholder, a Unix socket) are
// files of their own.
func winLink(attrs, tag uint32) bool {
	return attrs&winAttrReparsePoint != 0 && tag&winTagNameSurrogate != 0
}

// winFinalName returns the path GetFinalPathNameByHandle (VOLUME_NAME_DOS)
// answered, raw, in the form paths are written in (\\?\C:\x is C:\x,
// \\?\UNC\host\share\x is \\host\share\x): false for a name with no drive
// letter or share (\\?\Volume{…}\, a device), which no rule could have
// judged.
func winFinalName(raw string) (string, bool) {
	switch {
	case len(raw) >= 8 && strings.EqualFold(raw[:8], `\\?\UNC\`):
		if rest := raw[8:]; strings.Count(rest, `\`) >= 1 && !strings.HasPrefix(rest, `\`) {
			return `\\` + rest, true
		}
		return "", false
	case strings.HasPrefix(raw, `\\?\`):
		raw = raw[4:]
	}
	if len(raw) >= 3 && raw[1] == ':' && raw[2] == '\\' && ('a' <= raw[0] && raw[0] <= 'z' || 'A' <= raw[0] && raw[0] <= 'Z') {
		return raw, true
	}
	return "", false
}

// winSameFile reports whether final, the name Windows gives a file
// opened (winFinalName's), is judged, the path a judgement saw: the same
// in Slash's form, case-folded (NTFS's names fold case, and the final
// name is spelt as the disk has it, which a judged path need not be).
// A final name that differs means a link on the way (a junction, a
// symlink, a folder swapped for one since) led elsewhere.
func winSameFile(final, judged string) bool {
	f := FormOf("windows")
	return f.Of(final) == f.Of(judged)
}
