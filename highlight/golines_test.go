package highlight

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
)

// serverWindows returns the 100-line windows of net/http's server.go that
// the Go token benchmarks work on: the i-th call's window starts 137
// lines after the one before (wrapping), so every iteration lexes text of
// its own, as reads of different files do. The same window over and over
// times a branch predictor that has learnt its input: GoPacked took 13 µs
// on one window, 34 µs on changing ones.
func serverWindows(b *testing.B) func() []string {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	i := 0
	return func() []string {
		from := i * 137 % (len(lines) - 100)
		i++
		return lines[from : from+100]
	}
}

// BenchmarkGoLines100 makes the tokens of 100 lines of net/http's
// server.go, as the bridge does for a read of them.
func BenchmarkGoLines100(b *testing.B) {
	next := serverWindows(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := GoLines(next()); !ok {
			b.Fatal("refused")
		}
	}
}

// TestGoLines_MaxSpans: a text of more spans than MaxSpans (as a model
// could write one) is coloured up to MaxSpans spans, and its later lines
// have none.
func TestGoLines_MaxSpans(t *testing.T) {
	dense := strings.Repeat("a+", 200) // 400 spans a line
	lines := make([]string, 300)
	for i := range lines {
		lines[i] = dense
	}
	ts, ok := GoLines(lines)
	if !ok || len(ts) != len(lines) {
		t.Fatalf("GoLines: %d lines, %v", len(ts), ok)
	}
	total, full := 0, MaxSpans/400
	for i, l := range ts {
		total += len(l)
		switch {
		case i < full && len(l) != 400:
			t.Fatalf("line %d has %d spans, want 400", i, len(l))
		case i == full && len(l) != MaxSpans-full*400:
			t.Fatalf("line %d has %d spans, want the %d left", i, len(l), MaxSpans-full*400)
		case i > full && l != nil:
			t.Fatalf("line %d has %d spans past the budget", i, len(l))
		}
	}
	if total != MaxSpans || ts[full][len(ts[full])-1] != (Span{Start: len(ts[full]) - 1, End: len(ts[full]), Type: "Operator"}) {
		t.Errorf("%d spans in all; the last %+v", total, ts[full][len(ts[full])-1])
	}
}

// FuzzGoLines holds GoLines' spans to what an editor relies on, whatever
// the text: one array per line, each span inside its line (in UTF-16
// units), non-empty, in order and not overlapping.
func FuzzGoLines(f *testing.F) {
	for _, s := range []string{
		"package p\nfunc f() { x := `a\nb` + \"c\" // é𝄞\n}",
		"/* a\n\n b */ x /*/ y",
		"s := \"a\\\"b\" + 'c' + 1.5e3i\n\n",
		"\t\tif x {\n\t\t\treturn\n\t\t}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		ts, ok := GoLines(lines)
		if !ok {
			return
		}
		if len(ts) != len(lines) {
			t.Fatalf("%d lines of spans for %d lines", len(ts), len(lines))
		}
		for i, l := range ts {
			end, width := 0, utf16Len(lines[i])
			for _, sp := range l {
				if sp.Start < end || sp.End <= sp.Start || sp.End > width || sp.Type == "" {
					t.Fatalf("line %d %q (%d units): span %+v after %d", i, lines[i], width, sp, end)
				}
				end = sp.End
			}
		}
	})
}

// TestUTF16Len: the word-at-a-time ASCII skip counts as rune by rune
// does, wherever the first non-ASCII character falls.
func TestUTF16Len(t *testing.T) {
	ref := func(s string) (n int) {
		for _, r := range s {
			n += utf16.RuneLen(r)
		}
		return n
	}
	for _, other := range []string{"", "é", "𝄞", "\xff"} {
		for at := 0; at <= 19; at++ {
			s := strings.Repeat("a", at) + other + strings.Repeat("b", 19-at)
			t.Run(fmt.Sprintf("%q at %d", other, at), func(t *testing.T) {
				if got, want := utf16Len(s), ref(s); got != want {
					t.Errorf("utf16Len(%q) = %d, want %d", s, got, want)
				}
			})
		}
	}
}
