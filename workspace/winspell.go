package workspace

import (
	"strings"
)

// driveRelative splits a Windows drive-relative path ("C:x", "C:..\x",
// "C:"): a drive letter and a colon with no separator after, which Win32
// takes relative to that drive's current folder, not the drive's root.
// false for any other path.
func driveRelative(p string) (drive, rest string, ok bool) {
	if len(p) < 2 || p[1] != ':' || !('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') {
		return "", "", false
	}
	if len(p) > 2 && (p[2] == '\\' || p[2] == '/') {
		return "", "", false
	}
	return strings.ToUpper(p[:1]) + ":", p[2:], true
}

// onCwdDrive is p with the drive of a drive-relative path taken off when
// the drive is cwd's (a Windows path): the current folder of the
// current drive is cwd, so C:x there is x. Any other p is returned as it
// is.
func onCwdDrive(p, cwd string) string {
	if d, rest, ok := driveRelative(p); ok && len(cwd) >= 2 && strings.EqualFold(cwd[:2], d) {
		if rest == "" {
			return "."
		}
		return rest
	}
	return p
}

// WinUnjudged returns why a Windows path as written (absolute or
// relative to the folder cwd) names a file no rule can judge exactly,
// or "": a drive-relative path on a drive other than cwd's (its current
// folder there is the process's, unknown here), a \\?\GLOBALROOT path
// that does not go through the DOS devices (\Device\HarddiskVolume1\…),
// a local machine's share other than a drive's administrative share, an
// administrative share (X$) of a host that may be this machine by
// another name, and a stream other than a file's own (::$DATA) or a
// folder's index (::$INDEX_ALLOCATION) on a folder of the path. Slash
// gives every other spelling its one form.
func WinUnjudged(p, cwd string) string {
	if d, _, ok := driveRelative(p); ok {
		if len(cwd) >= 2 && strings.EqualFold(cwd[:2], d) {
			return ""
		}
		return p + " is relative to the current folder of drive " + d + ", which cannot be known here"
	}
	s := Slash(p, "windows")
	f := Fold(s)
	switch {
	case strings.HasPrefix(f, "globalroot/") || strings.HasPrefix(f, "//?/globalroot") || strings.HasPrefix(f, "//./globalroot"):
		return p + " names a device through the object manager, which cannot be judged here"
	case strings.HasPrefix(s, "//"):
		host, share, _ := splitUNC(s[2:])
		if len(share) == 2 && share[1] == '$' {
			return p + " names an administrative share of " + host + ", which may be this machine's drive " + strings.ToUpper(share[:1]) + ":"
		}
		if LocalHost(host) {
			return p + " names a share of this machine, which may be any of its folders"
		}
	}
	names := strings.Split(s, "/")
	for i, name := range names[:max(len(names)-1, 0)] {
		if i == 0 && len(name) == 2 && name[1] == ':' {
			continue
		}
		if strings.Contains(name, ":$") {
			return p + " names a stream of " + name + ", which cannot be judged here"
		}
	}
	return ""
}

// Unjudged is WinUnjudged of p in the workspace directory on Windows,
// and "" on other platforms, where every path is judged as written.
func (w *Workspace) Unjudged(p string) string {
	if w.form.GOOS != "windows" {
		return ""
	}
	return WinUnjudged(p, w.cwd)
}
