package golex

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

var sweep = flag.Bool("goroot-sweep", false, "compare Tokens with chroma on every Go file of GOROOT")

// chromaGo is chroma's own Go lexer, coalesced, as the helper uses it.
var chromaGo = chroma.Coalesce(lexers.Get("go"))

// chromaTokens is what chroma's own Go lexer makes of text.
func chromaTokens(t testing.TB, text string) []chroma.Token {
	t.Helper()
	it, err := chromaGo.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	return it.Tokens()
}

// sameAsChroma fails unless Tokens gives up on text or makes exactly
// chroma's tokens of it (by chroma's type names); it reports whether
// Tokens took the text.
func sameAsChroma(t testing.TB, name, text string) bool {
	t.Helper()
	toks, ok := Tokens(text)
	if !ok {
		return false
	}
	for i, tok := range toks { // the promise Inline makes
		v := text[tok.Start:tok.End]
		if Inline(tok.Type) && (v == "" || strings.TrimSpace(v) != v || strings.ContainsRune(v, '\n') || !isASCII(v)) {
			t.Fatalf("%s: token %d, %v %q: an inline type's token must be ASCII, on one line, with no white space at its ends", name, i, tok.Type, v)
		}
	}
	want := chromaTokens(t, text)
	for i := range max(len(toks), len(want)) {
		var got, w string
		if i < len(toks) {
			got = fmt.Sprintf("%v %q", toks[i].Type, text[toks[i].Start:toks[i].End])
		}
		if i < len(want) {
			w = fmt.Sprintf("%v %q", want[i].Type, want[i].Value)
		}
		if got != w {
			if i < len(toks) && i < len(want) && toks[i].Type == CommentMultiline &&
				want[i].Type == chroma.Operator && strings.HasPrefix(want[i].Value, "/*") {
				// chroma gave up matching a long comment (its rules time
				// out after 250 ms) and calls it an operator.
				return true
			}
			at := 0
			if i < len(toks) {
				at = toks[i].Start
			}
			t.Fatalf("%s: token %d (byte %d, near %q): got %s, chroma %s", name, i, at, text[max(0, at-30):min(len(text), at+30)], got, w)
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestTokens_AsChroma compares Tokens with chroma over Go files of
// the Go tree (its testdata included, with its broken and unusual
// sources), read as Tokenize reads them, and requires that it takes nearly
// all of them: every 60th file, or every file with -goroot-sweep (about
// 20 s; chroma is slow under -race, which make test uses).
func TestTokens_AsChroma(t *testing.T) {
	root := filepath.Join(runtime.GOROOT(), "src")
	var files, taken, n int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		if n++; n%60 != 0 && !*sweep {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || len(src) > 200<<10 {
			return nil
		}
		files++
		if sameAsChroma(t, path, strings.Join(strings.Split(string(src), "\n"), "\n")+"\n") {
			taken++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || taken < files*9/10 {
		t.Errorf("Tokens took %d of %d files; want nearly all", taken, files)
	}
	t.Logf("Tokens took %d of %d files", taken, files)
}

func TestTokens_Cases(t *testing.T) {
	tests := []struct {
		name, text string
		taken      bool
	}{
		{"keywords and names", "package p\nimport \"fmt\"\nfunc f(x int) error { for range 3 { go g(); defer h() }; return nil }\n", true},
		{"builtins called and named", "x := len(a) + len (b); var s string = string(b); y := any(1); z := int8 (2)\n", true},
		{"numbers", "a := []any{1, 0, 007, 08, 0x1F, 0X_aB, 0b101, 0o17, 1_000, 1.5, 1., .5, 1e9, 1E+9, 1.5e-3, 2i, 1.5i, .5i, 1e+3i, 1e3i, 1.e+2i, 3.14e2}\n", true},
		{"chars", `a := []rune{'a', '\'', '\\', '\n', '\x41', '\101', '\1', '\u00e9', '\U0001F600', 'é', '''}` + "\n", true},
		{"bad chars", `a := '\q' + 'ab' + '` + "\n", true},
		{"strings", `s := "a\"b\\" + "c\d" + "é—"` + "\n", true},
		{"raw strings", "s := `a{b\n{c}` + `` + \"x\"`y`\n", true},
		{"raw string unclosed", "s := `abc\n", true},
		{"raw string template", "s := `{{.X}}`\n", false},
		{"string unclosed", "s := \"abc\n", false},
		{"string over lines", "s := \"a\nb\"\n", true},
		{"comments", "// c\n//go:build x\n//\n/* a\n * b */ x /**/ y /*/ z */\n/\\\n* odd *\\\n/\n", true},
		{"comment unclosed", "x /* never\n", true},
		{"comment with unicode", "// héllo — ✓\n/* ✓ */\n", true},
		{"comment unicode at once", "//é\n", false},
		{"comment unicode after slashes", "//\u00a0x\n", false},
		{"operators", "a <<= b >>= c &^= d &^ e += f -= g *= h /= i %= j &= k |= l && m || n <- o ++ p -- q == r != s := t ... u + - * / % & | ^ ! = < > ~\n", true},
		{"punctuation runs", "f()(x)[0]{}.y, z; w: v\n", true},
		{"function over a newline", "f\n(x)\n", true},
		{"errors", "a # b $ c ? d @ e \\ f\n", true},
		{"identifier unicode", "π := 3\n", false},
		{"carriage return", "x := 1\r\n", false},
		{"a comment ends at a carriage return", "// a\rb\nx\n", false},
		{"a carriage return in a string", "s := \"\r\"\n", false},
		{"a carriage return in a comment", "/* a\r\n */ x\n", false},
		{"a carriage return in a raw string", "s := `a\r\nb`\n", false},
		{"a comment's last line", "x // no newline after", true},
		{"control", "x\x01 := 1\n", false},
		{"invalid UTF-8", "// \xff\n", false},
		{"keyword prefixes", "format ifx gofor nilly imports types mapx\n", true},
		{"generics", "func F[T any, S ~[]T](s S) T { var z T; return z }\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameAsChroma(t, tt.name, tt.text); got != tt.taken {
				t.Errorf("Tokens took it: %v, want %v", got, tt.taken)
			}
		})
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{
		"package p\nfunc f() { x := 1.5e3i + 'a' + len(s) }\n",
		"s := `a{b}` + \"c\\\"d\" // e\n/* f */\n",
		"0x_1 0b1 07 08 .5 1. 1e+ 1i a.b ... <<= &^ #\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sameAsChroma(t, "fuzz", text)
	})
}

// BenchmarkTokens100 tokenizes 100 lines of net/http's server.go, as a
// read does, with Tokens and with chroma: a window of its own each
// iteration, 137 lines after the last (one window over and over times a
// branch predictor that has learnt it).
func BenchmarkTokens100(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var texts []string // joined before the timing
	for i := range 64 {
		from := i * 137 % (len(lines) - 100)
		texts = append(texts, strings.Join(lines[from:from+100], "\n")+"\n")
	}
	windows := func() func() string {
		i := 0
		return func() string {
			i++
			return texts[i%len(texts)]
		}
	}
	b.Run("golex", func(b *testing.B) {
		next := windows()
		for b.Loop() {
			if _, ok := Tokens(next()); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("chroma", func(b *testing.B) {
		next := windows()
		for b.Loop() {
			it, err := chromaGo.Tokenise(nil, next())
			if err != nil {
				b.Fatal(err)
			}
			for tok := it(); tok != chroma.EOF; tok = it() {
			}
		}
	})
}

// TestType_Names holds every type's name to chroma's name of that type.
func TestType_Names(t *testing.T) {
	for typ := None; typ < numTypes; typ++ {
		t.Run(typ.String(), func(t *testing.T) {
			ct, err := chroma.TokenTypeString(typ.String())
			if err != nil {
				t.Fatalf("chroma has no type %q", typ.String())
			}
			if ct.String() != typ.String() {
				t.Errorf("chroma names it %q", ct.String())
			}
		})
	}
	if got := Type(200).String(); got != "None" {
		t.Errorf("an unknown type is %q", got)
	}
}

// TestTokens_Linear holds the block comment searches of texts built to
// make them quadratic (an opener with no closer after it, many times
// over) to a few passes over the text: golex runs in the bridge, on text
// the model may have written.
func TestTokens_Linear(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"openers", strings.Repeat("/*", 50_000)},
		{"openers between words", strings.Repeat("x /* y ", 20_000)},
		{"escaped-newline openers", strings.Repeat("/\\\n*", 20_000)},
		{"closed, then openers", "/* a */ " + strings.Repeat("/*", 50_000)},
		{"openers, then a closer", strings.Repeat("/*", 50_000) + "*/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := lexer{text: tc.text, yield: func(Token) {}}
			for l.pos < len(l.text) && l.next() {
			}
			if l.scanned > 2*len(tc.text) {
				t.Errorf("block comment searches looked at %d bytes of a %d-byte text", l.scanned, len(tc.text))
			}
			if _, ok := Tokens(tc.text); ok && len(tc.text) < 64<<10 {
				sameAsChroma(t, tc.name, tc.text)
			}
		})
	}
}

// TestClasses holds the table of first-byte classes to their definitions.
func TestClasses(t *testing.T) {
	if len(classes) != 256 {
		t.Fatalf("%d classes, want 256", len(classes))
	}
	for i := range 256 {
		b := byte(i)
		want := byte(classOther)
		switch {
		case b >= 0x80 || b < 0x20 && b != '\t' && b != '\n' || b == 0x7f:
			want = classBad
		case b == ' ' || b == '\t' || b == '\n':
			want = classSpace
		case b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z':
			want = classLetter
		case '0' <= b && b <= '9':
			want = classDigit
		}
		if classes[b] != want {
			t.Errorf("byte %#x: class %c, want %c", b, classes[b], want)
		}
	}
}
