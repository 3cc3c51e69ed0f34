package workspace

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// FoldsCase reports whether the file systems of the platform goos (a
// GOOS value) take names that differ only in case for the same file, as
// they are made unless someone chooses otherwise: APFS and HFS+ on macOS
// (and iOS), NTFS on Windows. Linux's file systems do not. A volume made
// the other way (a case-sensitive APFS, a case-sensitive NTFS folder)
// is judged by its platform's default: on the strict side for deny rules
// and protected files, which then also cover names that are different
// files there.
func FoldsCase(goos string) bool {
	switch goos {
	case "darwin", "ios", "windows":
		return true
	}
	return false
}

// Fold returns s case-folded: every letter replaced by one member of its
// case class (Unicode simple folding, the classes strings.EqualFold
// uses), so that Fold(a) == Fold(b) exactly when strings.EqualFold(a, b).
// ASCII letters fold to lower case. Unicode normalisation (é written as
// one character or as e and an accent, which macOS takes for one name)
// is not folded.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return foldFrom(s, i)
		}
	}
	return s
}

// foldFrom is Fold of s, whose first i bytes fold to themselves.
func foldFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteByte(s[i]) // not UTF-8: a byte of a name, kept
		} else {
			b.WriteRune(foldRune(r))
		}
		i += n
	}
	return b.String()
}

// foldRune is the member of r's case class Fold writes: the least lower
// case letter in it, else the least rune.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	least, lower := r, rune(-1)
	for f := r; ; {
		if f < least {
			least = f
		}
		if unicode.IsLower(f) && (lower < 0 || f < lower) {
			lower = f
		}
		if f = unicode.SimpleFold(f); f == r {
			break
		}
	}
	if lower >= 0 {
		return lower
	}
	return least
}

// Slash returns the absolute path p of the platform goos in the one form
// path rules are matched against: on Windows, with "/" for every
// separator, the \\?\ and \\.\ prefixes taken off (\\?\C:\x is C:/x,
// \\?\UNC\host\share\x is //host/share/x), the drive letter upper case,
// repeated separators, "." and ".." taken (".." never above the drive or
// the share), and each name's trailing dots and spaces dropped, as Win32
// drops them when it opens a file (Microsoft KB Q115827, "Filenames
// Ending with Space or Period Not Supported"; J. Kuhne, "Path
// Normalization", MSDN blog, 2016-04-21; both read 2026-12-04), except
// under \\?\, which Win32 passes on as written; a "::$DATA" ending (the
// file's own stream) and a folder's index stream ("::$INDEX_ALLOCATION",
// ":$I30:$INDEX_ALLOCATION") are dropped too, \\?\GLOBALROOT\??\ is
// \\?\, and a loopback host's administrative share (\\localhost\C$) is
// its drive. WinUnjudged says which spellings this form cannot settle. Elsewhere p is returned as it is: a
// backslash is a name's character there, and the caller's paths are
// already clean.
func Slash(p, goos string) string {
	if goos != "windows" {
		return p
	}
	s := strings.ReplaceAll(p, `\`, "/")
	verbatim := false
	switch {
	case len(s) >= 8 && (s[:4] == "//?/" || s[:4] == "//./") && strings.EqualFold(s[4:8], "UNC/"):
		verbatim = s[2] == '?'
		s = "//" + s[8:]
	case strings.HasPrefix(s, "//?/"), strings.HasPrefix(s, "//./"), strings.HasPrefix(s, "/??/"):
		verbatim = s[2] == '?'
		s = s[4:]
		if t, ok := globalRoot(s); ok {
			s = t
			if len(s) >= 4 && strings.EqualFold(s[:4], "UNC/") {
				s = "//" + s[4:]
			}
		}
	}
	vol, rest := "", s
	switch {
	case len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z'):
		vol, rest = strings.ToUpper(s[:1])+":", s[2:]
	case strings.HasPrefix(s, "//"):
		host, share, tail := splitUNC(s[2:])
		vol, rest = "//"+host+"/"+share, "/"+tail
		if d, ok := adminShare(host, share); ok {
			vol = d
		}
	}
	rooted := strings.HasPrefix(rest, "/")
	var names []string
	for _, name := range strings.Split(rest, "/") {
		name = dirStream(name)
		if !verbatim && strings.Trim(name, ".") != "" {
			name = strings.TrimRight(name, ". ")
		}
		switch name {
		case "", ".":
		case "..":
			if len(names) > 0 && names[len(names)-1] != ".." {
				names = names[:len(names)-1]
			} else if !rooted {
				names = append(names, name)
			}
		default:
			names = append(names, name)
		}
	}
	if n := len(names); n > 0 && len(names[n-1]) > 7 && strings.EqualFold(names[n-1][len(names[n-1])-7:], "::$DATA") {
		names[n-1] = names[n-1][:len(names[n-1])-7]
	}
	out := strings.Join(names, "/")
	if rooted {
		out = "/" + out
	}
	return vol + out
}

// dirStream is name without a folder's index stream: NTFS opens
// "dir::$INDEX_ALLOCATION" and "dir:$I30:$INDEX_ALLOCATION" (any case) as
// the folder dir itself (Microsoft, "File Streams (Local File Systems)",
// learn.microsoft.com, read 2026-12-07).
func dirStream(name string) string {
	for _, suffix := range []string{"::$INDEX_ALLOCATION", ":$I30:$INDEX_ALLOCATION"} {
		if len(name) > len(suffix) && strings.EqualFold(name[len(name)-len(suffix):], suffix) {
			return name[:len(name)-len(suffix)]
		}
	}
	return name
}

// globalRoot is s (a path after \\?\ or \\.\, in "/" form) with the
// object manager's way to the DOS devices taken off: GLOBALROOT/??/,
// GLOBALROOT/GLOBAL??/ and GLOBALROOT/DosDevices/ lead to the same names
// as \\?\ itself (C:, UNC); false when s does not start so.
func globalRoot(s string) (string, bool) {
	const g = "GLOBALROOT/"
	if len(s) < len(g) || !strings.EqualFold(s[:len(g)], g) {
		return s, false
	}
	t := strings.TrimLeft(s[len(g):], "/")
	for _, dir := range []string{"??/", "GLOBAL??/", "DosDevices/"} {
		if len(t) >= len(dir) && strings.EqualFold(t[:len(dir)], dir) {
			return t[len(dir):], true
		}
	}
	return s, false
}

// localHosts are the names a UNC path gives the machine itself whatever
// its name or network: its administrative share C$ there is drive C:.
var localHosts = map[string]bool{"localhost": true, ".": true, "0--1.ipv6-literal.net": true, "::1": true, "[::1]": true}

// adminShare is the drive "X:" the UNC share \\host\X$ is when host is
// the local machine (localhost, a loopback address): the administrative
// share of drive X (Microsoft, "Administrative shares", read 2026-12-07).
func adminShare(host, share string) (string, bool) {
	if !LocalHost(host) || len(share) != 2 || share[1] != '$' || !('a' <= share[0] && share[0] <= 'z' || 'A' <= share[0] && share[0] <= 'Z') {
		return "", false
	}
	return strings.ToUpper(share[:1]) + ":", true
}

// LocalHost reports whether a UNC path's host names this machine by a
// name every machine has: localhost, ".", or a loopback address (IPv4
// 127.0.0.0/8, IPv6 ::1). The machine's own name and addresses are not
// known here.
func LocalHost(host string) bool {
	h := strings.ToLower(host)
	if localHosts[h] {
		return true
	}
	if rest, ok := strings.CutPrefix(h, "127."); ok {
		parts := strings.Split(rest, ".")
		if len(parts) != 3 {
			return false
		}
		for _, p := range parts {
			if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
				return false
			}
		}
		return true
	}
	return false
}

// splitUNC splits "host/share/rest" (the path after a UNC's "//").
func splitUNC(s string) (host, share, rest string) {
	host, s, _ = strings.Cut(s, "/")
	share, rest, _ = strings.Cut(s, "/")
	return host, share, rest
}

// Form is how one platform's paths are compared: in Slash's form, and
// case-folded when its file systems fold case.
type Form struct {
	GOOS string // a GOOS value
	Fold bool   // FoldsCase(GOOS), unless a probe of the volume said otherwise
}

// FormOf is the Form of the platform goos.
func FormOf(goos string) Form { return Form{GOOS: goos, Fold: FoldsCase(goos)} }

// Of returns the absolute path p in the form rules compare: Slash's, and
// Fold's when f folds case.
func (f Form) Of(p string) string {
	s := Slash(p, f.GOOS)
	if f.Fold {
		s = Fold(s)
	}
	return s
}

// Within reports whether the absolute path p is dir or inside it, in
// f's form.
func (f Form) Within(p, dir string) bool {
	p, dir = f.Of(p), f.Of(dir)
	if dir == "/" || strings.HasSuffix(dir, "/") {
		return strings.HasPrefix(p, dir) || p+"/" == dir
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}
