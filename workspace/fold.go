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
// file's own stream) is dropped too. Elsewhere p is returned as it is: a
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
	}
	vol, rest := "", s
	switch {
	case len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z'):
		vol, rest = strings.ToUpper(s[:1])+":", s[2:]
	case strings.HasPrefix(s, "//"):
		host, share, tail := splitUNC(s[2:])
		vol, rest = "//"+host+"/"+share, "/"+tail
	}
	rooted := strings.HasPrefix(rest, "/")
	var names []string
	for _, name := range strings.Split(rest, "/") {
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
