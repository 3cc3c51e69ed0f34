package workspace

import (
	"runtime"
	"strings"
	"testing"
)

func TestFoldsCase(t *testing.T) {
	for _, tc := range []struct {
		goos string
		want bool
	}{
		{"darwin", true},
		{"ios", true},
		{"windows", true},
		{"linux", false},
		{"android", false},
		{"freebsd", false},
		{"", false},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			if got := FoldsCase(tc.goos); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if got := FormOf(tc.goos); got.Fold != tc.want || got.GOOS != tc.goos {
				t.Errorf("FormOf = %+v", got)
			}
		})
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"lower case is itself", "/home/me/secrets", "/home/me/secrets"},
		{"ASCII capitals", "/Users/Me/Secrets/KEY", "/users/me/secrets/key"},
		{"a protected folder", ".GIT/Hooks", ".git/hooks"},
		{"accents", "/Données/ÉTÉ", "/données/été"},
		{"Greek final sigma and capital", "ΣΟΦΙΑ σοφιας", "ςοφια ςοφιας"},
		{"Kelvin sign is k", "\u212Aey", "key"},
		{"long s is s", "\u017Fecret", "secret"},
		{"dotless i stays apart", "\u0131d", "\u0131d"},
		{"dotted capital I stays apart", "\u0130d", "\u0130d"},
		{"no letters", "/1/2/_-.~", "/1/2/_-.~"},
		{"bytes that are not UTF-8 kept", "a\xffB\xc3", "a\xffb\xc3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fold(tc.in); got != tc.want {
				t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	t.Run("agrees with EqualFold", func(t *testing.T) {
		words := []string{"k", "K", "\u212A", "s", "S", "\u017F", "i", "I", "\u0131", "\u0130", "σ", "ς", "Σ",
			"ß", "ẞ", "ǅ", "ǆ", "Ǆ", "µ", "Μ", "μ", "é", "É", "ﬀ", "ff", "Ω", "ω", "\u2126", "å", "Å", "\u212B"}
		for _, a := range words {
			for _, b := range words {
				if (Fold(a) == Fold(b)) != strings.EqualFold(a, b) {
					t.Errorf("Fold(%q) = %q, Fold(%q) = %q, EqualFold %v", a, Fold(a), b, Fold(b), strings.EqualFold(a, b))
				}
			}
		}
	})
}

func TestSlash(t *testing.T) {
	for _, tc := range []struct{ name, goos, in, want string }{
		{"linux: as it is", "linux", "/home/me/a\\b/../c", "/home/me/a\\b/../c"},
		{"darwin: as it is", "darwin", "/Users/Me/x", "/Users/Me/x"},
		{"a drive path", "windows", `C:\Users\me\proj\secrets\KEY`, "C:/Users/me/proj/secrets/KEY"},
		{"forward slashes", "windows", "C:/Users/me/proj", "C:/Users/me/proj"},
		{"mixed separators", "windows", `C:\Users/me\\proj//x`, "C:/Users/me/proj/x"},
		{"a lower-case drive", "windows", `c:\x`, "C:/x"},
		{"the drive's root", "windows", `C:\`, "C:/"},
		{"dot-dot", "windows", `C:\a\b\..\..\c\.\d`, "C:/c/d"},
		{"dot-dot never above the drive", "windows", `C:\..\..\Windows`, "C:/Windows"},
		{"verbatim drive", "windows", `\\?\C:\Users\me\x`, "C:/Users/me/x"},
		{"verbatim lower-case drive", "windows", `\\?\d:\x`, "D:/x"},
		{"device drive", "windows", `\\.\C:\x`, "C:/x"},
		{"NT drive", "windows", `\??\C:\x`, "C:/x"},
		{"UNC", "windows", `\\server\share\dir\f.txt`, "//server/share/dir/f.txt"},
		{"UNC dot-dot stays in the share", "windows", `\\server\share\..\..\f`, "//server/share/f"},
		{"verbatim UNC", "windows", `\\?\UNC\server\share\dir\f.txt`, "//server/share/dir/f.txt"},
		{"verbatim UNC in lower case", "windows", `\\?\unc\server\share\f`, "//server/share/f"},
		{"trailing dots and spaces dropped", "windows", `C:\proj\secrets. \KEY.`, "C:/proj/secrets/KEY"},
		{"a name of dots kept", "windows", `C:\proj\...\x`, "C:/proj/.../x"},
		{"verbatim keeps trailing dots", "windows", `\\?\C:\proj\secrets.\KEY`, "C:/proj/secrets./KEY"},
		{"the file's own stream", "windows", `C:\proj\.env::$DATA`, "C:/proj/.env"},
		{"the stream in any case", "windows", `C:\proj\.env::$data`, "C:/proj/.env"},
		{"another stream kept", "windows", `C:\proj\f.txt:hidden`, "C:/proj/f.txt:hidden"},
		{"rooted without a drive", "windows", `\proj\x`, "/proj/x"},
		{"relative", "windows", `proj\..\..\x`, "../x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Slash(tc.in, tc.goos); got != tc.want {
				t.Errorf("Slash(%q, %s) = %q, want %q", tc.in, tc.goos, got, tc.want)
			}
		})
	}
}

func TestForm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		goos   string
		p, dir string
		of     string // Of(p)
		within bool   // Within(p, dir)
	}{
		{"linux: exact", "linux", "/w/Secrets/KEY", "/w/secrets", "/w/Secrets/KEY", false},
		{"linux: inside", "linux", "/w/secrets/KEY", "/w/secrets", "/w/secrets/KEY", true},
		{"darwin: folded", "darwin", "/w/Secrets/KEY", "/w/secrets", "/w/secrets/key", true},
		{"darwin: the dir itself", "darwin", "/w/SECRETS", "/w/secrets", "/w/secrets", true},
		{"darwin: a sibling with the prefix", "darwin", "/w/Secrets2/KEY", "/w/secrets", "/w/secrets2/key", false},
		{"darwin: under /", "darwin", "/A", "/", "/a", true},
		{"windows: drive forms and case", "windows", `\\?\c:\W\Secrets\KEY`, `C:\w\secrets`, "c:/w/secrets/key", true},
		{"windows: UNC", "windows", `\\Host\Share\Proj\x`, `//host/share/proj`, "//host/share/proj/x", true},
		{"windows: the drive's root", "windows", `D:\x`, `d:\`, "d:/x", true},
		{"windows: another drive", "windows", `D:\w\x`, `C:\w`, "d:/w/x", false},
		{"windows: a trailing dot is the same folder", "windows", `C:\w\secrets.\KEY`, `C:\w\secrets`, "c:/w/secrets/key", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := FormOf(tc.goos)
			if got := f.Of(tc.p); got != tc.of {
				t.Errorf("Of(%q) = %q, want %q", tc.p, got, tc.of)
			}
			if got := f.Within(tc.p, tc.dir); got != tc.within {
				t.Errorf("Within(%q, %q) = %v, want %v", tc.p, tc.dir, got, tc.within)
			}
		})
	}
}

// TestNewOn: a workspace takes its platform's form; New takes this
// machine's.
func TestNewOn(t *testing.T) {
	dir := t.TempDir()
	for _, goos := range []string{"linux", "darwin", "windows"} {
		w, err := NewOn(goos, dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Form(); got != FormOf(goos) {
			t.Errorf("%s: form %+v", goos, got)
		}
	}
	w, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w.Form().Fold != FoldsCase(runtime.GOOS) {
		t.Errorf("New on %s folds case: %v", runtime.GOOS, w.Form().Fold)
	}
}
