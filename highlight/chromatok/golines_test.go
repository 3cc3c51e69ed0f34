package chromatok

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// TestGoLines_AsChroma holds the bridge's own Go tokens (highlight.GoLines,
// which it sends without asking the helper) to what chroma's Go lexer
// gives the same lines here, span for span: columns in UTF-16 units, white
// space and empty lines left out. Over a 100-line window of every 60th Go
// file of the Go tree (as reads take them), and over cases that stress the
// line splitting.
func TestGoLines_AsChroma(t *testing.T) {
	chromaGo := lexerFor("a.go", "")
	same := func(t *testing.T, name string, lines []string) bool {
		t.Helper()
		got, ok := highlight.GoLines(lines)
		if !ok {
			return false
		}
		want, err := chromaLines(chromaGo, lines, highlight.MaxSpans)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d lines of tokens, chroma %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) && !longComment(want[i]) {
				t.Fatalf("%s: line %d %q:\n got %+v\nwant %+v", name, i+1, lines[i], got[i], want[i])
			}
		}
		return true
	}
	for _, tc := range []struct {
		name  string
		lines []string
		taken bool
	}{
		{"empty lines", []string{"", "package p", "", ""}, true},
		{"one empty line", []string{""}, true},
		{"raw string over lines", []string{"x := `a", "", "\tb {c}", "d` + y"}, true},
		{"block comment over lines", []string{"/* a", "   ", " * é𝄞 b", "*/ x"}, true},
		{"unicode in a string", []string{`s := "𝄞é" + x // ✓`}, true},
		{"non-breaking space alone in a comment", []string{"x /*", "\u00a0", "*/"}, true},
		{"tabs and trailing space", []string{"\tfunc f() {  ", "\t\treturn\t", "}"}, true},
		{"string over lines", []string{`s := "a`, `b"`}, true},
		{"refused", []string{"π := 3"}, false},
		{"denser than the first array", []string{"x := " + strings.Repeat("a+", 300) + "b", strings.Repeat("(", 100), "", strings.Repeat("c.", 200)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := same(t, tc.name, tc.lines); got != tc.taken {
				t.Errorf("GoLines took it: %v, want %v", got, tc.taken)
			}
		})
	}
	t.Run("the Go tree", func(t *testing.T) {
		var files, taken, n int
		err := filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			if n++; n%60 != 7 {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil || len(src) > 200<<10 {
				return nil
			}
			lines := strings.Split(string(src), "\n")
			from := len(lines) / 3
			files++
			if same(t, path, lines[from:min(len(lines), from+100)]) {
				taken++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if files < 100 || taken < files*9/10 {
			t.Errorf("GoLines took %d of %d windows; want nearly all", taken, files)
		}
	})
}

// longComment reports chroma's answer for a line of a block comment it
// gave up on (its rules time out after 250 ms, under -race sooner, and it
// calls the comment an operator), where golex still says comment.
func longComment(spans []highlight.Span) bool {
	return len(spans) > 0 && spans[0].Type == "Operator"
}

// TestIsGo_AgreesWithTheHelper checks that the bridge tokenizes a read
// itself only where the helper would have used chroma's Go lexer.
func TestIsGo_AgreesWithTheHelper(t *testing.T) {
	for _, tc := range []struct{ path, lang string }{
		{"a.go", ""}, {"/w/x_test.go", ""}, {"a.GO", ""}, {"a.go.txt", ""}, {"go", ""},
		{"noext", "go"}, {"noext", "Go"}, {"noext", "GOLANG"}, {"a.py", "go"}, {"a.go", "python"},
		{"go.mod", "go"}, {"go.mod", ""}, {"a.gotmpl", ""}, {"a.tmpl", "go-html-template"},
		{"a.go", "go-html-template"}, {"a.go", "gotmpl"}, {".go", ""},
	} {
		helper := LanguageName(tc.path, tc.lang) == "go"
		if highlight.IsGo(tc.path, tc.lang) && !helper {
			t.Errorf("IsGo(%q, %q) but the helper would use %q", tc.path, tc.lang, LanguageName(tc.path, tc.lang))
		}
	}
	for _, tc := range []struct{ path, lang string }{{"a.go", ""}, {"x", "go"}, {"x", "golang"}, {"go.mod", "go"}} {
		if !highlight.IsGo(tc.path, tc.lang) {
			t.Errorf("IsGo(%q, %q) = false", tc.path, tc.lang)
		}
	}
}

// TestTokenize_GoTakesTheFastPath checks Tokenize uses GoLines for Go:
// chroma allocates far more for the same lines.
func TestTokenize_GoTakesTheFastPath(t *testing.T) {
	lines := strings.Split("package p\n\nfunc f(x int) string {\n\treturn fmt.Sprint(x) // done\n}", "\n")
	Tokenize("a.go", "", lines) // warm the lexer cache
	fast := testing.AllocsPerRun(10, func() { Tokenize("a.go", "", lines) })
	slow := testing.AllocsPerRun(10, func() { Tokenize("a.py", "", lines) })
	if fast*4 > slow {
		t.Errorf("Go took %v allocations, Python %v: Go went through chroma", fast, slow)
	}
}

// TestChromaLines_Budget: chroma's spans stop at the budget too (Tokenize
// gives highlight.MaxSpans), so the helper's answer stays bounded; the
// lines past it have none.
func TestChromaLines_Budget(t *testing.T) {
	lines := []string{"a+a+a", "b+b", "c", "d+d"}
	ts, err := chromaLines(lexerFor("x.py", ""), lines, 7)
	if err != nil {
		t.Fatal(err)
	}
	got := []int{}
	for _, l := range ts {
		got = append(got, len(l))
	}
	if !reflect.DeepEqual(got, []int{5, 2, 0, 0}) || ts[2] != nil || ts[1][1] != (highlight.Span{Start: 1, End: 2, Type: "Operator"}) {
		t.Errorf("spans a line %v: %+v", got, ts)
	}
}
