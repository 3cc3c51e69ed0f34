package views

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestChange_Hunks(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           string // hunks rendered as unified text
	}{
		{"identical", "a\nb\n", "a\nb\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"new file", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"deleted content", "x\ny\n", "", "@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"insert at top", "b\nc\n", "a\nb\nc\n", "@@ -1,2 +1,3 @@\n+a\n b\n c\n"},
		{"pure insertion far from context", "1\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\nz\n", "@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+z\n"},
		{"missing final newline added", "a\nb", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\\\n+b\n"},
		{"context limited to three lines", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n", "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"distant changes make two hunks", "a\n1\n2\n3\n4\n5\n6\n7\n8\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nB\n", "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-b\n+B\n"},
		{"near changes merge", "a\n1\n2\n3\nb\n", "A\n1\n2\n3\nB\n", "@@ -1,5 +1,5 @@\n-a\n+A\n 1\n 2\n 3\n-b\n+B\n"},
		{"CRLF kept in lines", "a\r\nb\r\n", "a\r\nc\r\n", "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := Change("/f", tc.old, tc.new)
			if got := unified(fc.Hunks); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			checkApplies(t, tc.old, tc.new, fc)
		})
	}
}

// unified renders hunks like diff -u, marking a missing newline with "\".
func unified(hs []Hunk) string {
	var b strings.Builder
	for _, h := range hs {
		b.WriteString("@@ -" + span(h.OldStart, h.OldLines) + " +" + span(h.NewStart, h.NewLines) + " @@\n")
		for _, l := range h.Lines {
			text := l.Text
			if !strings.HasSuffix(text, "\n") {
				text += "\\\n"
			}
			b.WriteString(l.Op + text)
		}
	}
	return b.String()
}

func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func checkApplies(t *testing.T, old, new string, fc FileChange) {
	t.Helper()
	got, err := ApplyHunks(old, fc.Hunks)
	if err != nil || got != new {
		t.Fatalf("hunks: got %q, %v; want %q", got, err, new)
	}
	got, err = ApplyEdits(old, fc.Edits)
	if err != nil || got != new {
		t.Fatalf("edits %+v: got %q, %v; want %q", fc.Edits, got, err, new)
	}
}

// randomText builds a file from a small vocabulary so that lines repeat,
// with optional CRLF, non-ASCII text and a missing final newline.
func randomText(r *rand.Rand, lines int, crlf bool) string {
	vocab := []string{"func main() {", "}", "", "\treturn nil", "héllo wörld", "😀 emoji line", "x := 1", "// comment", "a", "b"}
	eol := "\n"
	if crlf {
		eol = "\r\n"
	}
	var b strings.Builder
	for i := range lines {
		b.WriteString(vocab[r.IntN(len(vocab))])
		if i < lines-1 || r.IntN(3) > 0 {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// mutate applies random line edits: replace, insert, delete, in-line edits.
func mutate(r *rand.Rand, s string) string {
	lines := splitLines(s)
	for range r.IntN(6) + 1 {
		i := 0
		if len(lines) > 0 {
			i = r.IntN(len(lines))
		}
		switch r.IntN(4) {
		case 0:
			lines = append(lines[:i], append([]string{"inserted ünïcode 𝄞\n"}, lines[i:]...)...)
		case 1:
			if len(lines) > 0 {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if len(lines) > 0 {
				lines[i] = "changed " + lines[i]
			}
		default:
			if len(lines) > 0 {
				lines[i] = strings.TrimSuffix(lines[i], "\n")
			}
		}
	}
	return strings.Join(lines, "")
}

func TestProperty_HunksAndEditsReproduceTheNewText(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 500 {
		old := randomText(r, r.IntN(40), i%3 == 0)
		new := mutate(r, old)
		fc := Change("/f", old, new)
		if fc.Truncated {
			t.Fatalf("case %d truncated", i)
		}
		got, err := ApplyHunks(old, fc.Hunks)
		if err != nil || got != new {
			t.Fatalf("case %d hunks: %v\nold %q\nnew %q\ngot %q", i, err, old, new, got)
		}
		got, err = ApplyEdits(old, fc.Edits)
		if err != nil || got != new {
			t.Fatalf("case %d edits: %v\nold %q\nnew %q\ngot %q", i, err, old, new, got)
		}
		for _, h := range fc.Hunks {
			if h.OldLines+h.NewLines == 0 || len(h.Lines) == 0 {
				t.Fatalf("case %d: empty hunk %+v", i, h)
			}
		}
	}
}

func TestChange_TruncatesPathologicalDiffs(t *testing.T) {
	var a, b strings.Builder
	for i := range MaxHunkLines {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	fc := Change("/big", a.String(), b.String())
	if !fc.Truncated {
		t.Fatalf("a %d-line rewrite was not truncated", MaxHunkLines)
	}
	n := 0
	for _, h := range fc.Hunks {
		n += len(h.Lines)
	}
	if n > MaxHunkLines {
		t.Errorf("%d hunk lines, cap %d", n, MaxHunkLines)
	}
	if got, err := ApplyEdits(a.String(), fc.Edits); err != nil || got != b.String() {
		t.Errorf("edits of a truncated change are incomplete: %v", err)
	}
}

func TestChange_ExcerptOffset(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\n"
	excerpt := "d\ne\nf\n" // lines 4-6 of old
	fc := shift(Change("/f", excerpt, "d\nE\nf\n"), 3)
	if h := fc.Hunks[0]; h.OldStart != 4 || h.NewStart != 4 {
		t.Errorf("hunk %+v, want starts at line 4", h)
	}
	got, err := ApplyEdits(old, fc.Edits)
	if err != nil || got != "a\nb\nc\nd\nE\nf\ng\nh\n" {
		t.Errorf("shifted edits applied to the whole file: %q %v", got, err)
	}
}
