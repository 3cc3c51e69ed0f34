package workspace

import "testing"

// TestOpensQuietly: macOS opens a judged file for reading only when its
// mode is a regular file's or a directory's; a FIFO would block, a
// device's open has effects.
func TestOpensQuietly(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode uint32
		want bool
	}{
		{"regular file", 0o100644, true},
		{"directory", 0o040755, true},
		{"FIFO", 0o010644, false},
		{"character device", 0o020666, false},
		{"block device", 0o060660, false},
		{"socket", 0o140755, false},
		{"symlink (lstat's)", 0o120777, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := opensQuietly(tc.mode); got != tc.want {
				t.Errorf("opensQuietly(%o) = %v, want %v", tc.mode, got, tc.want)
			}
		})
	}
}

// TestWinLink: a reparse point whose tag names another file is a link
// (symlinks and junctions, and tags not known here that name a file);
// other reparse points, and files without one, are files.
func TestWinLink(t *testing.T) {
	const dir, reparse = 0x10, 0x400
	for _, tc := range []struct {
		name       string
		attrs, tag uint32
		want       bool
	}{
		{"a symlink", reparse, winTagSymlink, true},
		{"a directory symlink", reparse | dir, winTagSymlink, true},
		{"a junction", reparse | dir, winTagMountPoint, true},
		{"WSL's symlink", reparse, 0xA000001D, true},
		{"a deduplicated file", reparse, 0x80000013, false},
		{"a OneDrive placeholder", reparse, 0x9000001A, false},
		{"a Unix socket", reparse, 0x80000023, false},
		{"an app execution alias", reparse, 0x8000001B, false},
		{"a plain directory", dir, 0, false},
		{"a tag without the reparse attribute", 0x20, winTagSymlink, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := winLink(tc.attrs, tc.tag); got != tc.want {
				t.Errorf("winLink(%#x, %#x) = %v, want %v", tc.attrs, tc.tag, got, tc.want)
			}
		})
	}
}

// TestWinFinalName: GetFinalPathNameByHandle's answer in the form paths
// are written in; a name no rule could have judged is none.
func TestWinFinalName(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string
		ok              bool
	}{
		{"a drive", `\\?\C:\Users\me\ws\a.txt`, `C:\Users\me\ws\a.txt`, true},
		{"a drive's root", `\\?\D:\`, `D:\`, true},
		{"a share", `\\?\UNC\host\share\ws\a.txt`, `\\host\share\ws\a.txt`, true},
		{"a share, the prefix in lower case", `\\?\unc\host\share\a`, `\\host\share\a`, true},
		{"already plain", `C:\x`, `C:\x`, true},
		{"a volume GUID", `\\?\Volume{0b1c2d3e-0000-0000-0000-100000000000}\x`, "", false},
		{"a share without its name", `\\?\UNC\host`, "", false},
		{"a share with an empty host", `\\?\UNC\\share\x`, "", false},
		{"a device", `\\.\PhysicalDrive0`, "", false},
		{"a drive-relative name", `C:x`, "", false},
		{"empty", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := winFinalName(tc.raw)
			if got != tc.want || ok != tc.ok {
				t.Errorf("winFinalName(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestWinSameFile: the name Windows gives what it opened is the judged
// path, however each is spelt, or a link on the way led elsewhere.
func TestWinSameFile(t *testing.T) {
	for _, tc := range []struct {
		name, final, judged string
		want                bool
	}{
		{"the same", `C:\ws\a.txt`, `C:\ws\a.txt`, true},
		{"case as the disk has it", `C:\Users\Me\WS\a.txt`, `c:\users\me\ws\A.TXT`, true},
		{"slashes", `C:\ws\a.txt`, `C:/ws/a.txt`, true},
		{"the judged path verbatim", `C:\ws\a.txt`, `\\?\C:\ws\a.txt`, true},
		{"a share", `\\host\share\a`, `//HOST/share/a`, true},
		{"a junction on the way led outside", `C:\elsewhere\a.txt`, `C:\ws\a.txt`, false},
		{"another drive", `D:\ws\a.txt`, `C:\ws\a.txt`, false},
		{"a file of the same name one folder up", `C:\a.txt`, `C:\ws\a.txt`, false},
		{"a longer name", `C:\ws\a.txt.bak`, `C:\ws\a.txt`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := winSameFile(tc.final, tc.judged); got != tc.want {
				t.Errorf("winSameFile(%q, %q) = %v, want %v", tc.final, tc.judged, got, tc.want)
			}
		})
	}
}
