package highlight

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goPackedCases are texts where the one-pass writer has the most to get
// wrong: lines without spans (null), spans across lines (a raw string, a
// block comment), non-ASCII text in UTF-16 units, Unicode white space
// alone on a line of a comment, a type first used late.
var goPackedCases = map[string]string{
	"empty text":       "",
	"one blank line":   "\n",
	"declaration":      "package p\n\nfunc f() {}\n",
	"raw string":       "x := `a\n\n  b` + \"c\"",
	"block comment":    "/* a\n\n b */ x /*/ y",
	"non-ASCII":        "s := \"é𝄞\" // 𝄞 é\n\tr := 'é'",
	"Unicode space":    "/*\n\u00a0\u2003\n*/",
	"numbers":          "a, b, c := 0x1p-2i, 0b101, 0o17\n\n\td := 1_000.5e3",
	"trailing newline": "package p\n",
	"refused":          "x := \"unclosed\n",
	"control byte":     "x\ry",
}

// TestGoPacked: GoPacked writes exactly what packing GoLines' spans
// writes, and refuses what GoLines refuses.
func TestGoPacked(t *testing.T) {
	for name, text := range goPackedCases {
		t.Run(name, func(t *testing.T) { checkGoPacked(t, strings.Split(text, "\n")) })
	}
	t.Run("past MaxSpans", func(t *testing.T) {
		lines := make([]string, 300)
		for i := range lines {
			lines[i] = strings.Repeat("a+", 200)
		}
		checkGoPacked(t, lines)
	})
}

// TestGoPacked_GoSources: the same over 100-line windows of every Go
// file of the Go tree's net, go and encoding packages.
func TestGoPacked_GoSources(t *testing.T) {
	windows := 0
	for _, dir := range []string{"net", "go", "encoding"} {
		root := filepath.Join(runtime.GOROOT(), "src", dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			lines := strings.Split(string(src), "\n")
			for from := 0; from < len(lines); from += 100 {
				checkGoPacked(t, lines[from:min(from+100, len(lines))])
				windows++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if windows < 1000 {
		t.Fatalf("only %d windows", windows)
	}
}

func checkGoPacked(t *testing.T, lines []string) {
	t.Helper()
	got, ok := GoPacked(lines)
	ts, want := GoLines(lines)
	if ok != want {
		t.Fatalf("GoPacked took the text: %v, GoLines: %v (%.80q)", ok, want, strings.Join(lines, "\n"))
	}
	if !ok {
		return
	}
	if p := Pack(ts); !bytes.Equal(got, p) {
		t.Fatalf("%.80q:\nGoPacked %s\npacked   %s", strings.Join(lines, "\n"), got, p)
	}
}

// FuzzGoPacked: whatever the text, GoPacked and packed GoLines agree.
func FuzzGoPacked(f *testing.F) {
	for _, s := range goPackedCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkGoPacked(t, strings.Split(text, "\n")) })
}

// BenchmarkGoPacked100 writes the packed tokens of 100 lines of net/http's
// server.go (a window of its own each iteration) in one pass, and by
// packing GoLines' spans.
func BenchmarkGoPacked100(b *testing.B) {
	b.Run("one-pass", func(b *testing.B) {
		next := serverWindows(b)
		b.ReportAllocs()
		for b.Loop() {
			GoPacked(next())
		}
	})
	b.Run("spans-then-packed", func(b *testing.B) {
		next := serverWindows(b)
		b.ReportAllocs()
		for b.Loop() {
			ts, _ := GoLines(next())
			Pack(ts)
		}
	})
}
