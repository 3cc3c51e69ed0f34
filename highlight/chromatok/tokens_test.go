package chromatok

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

func TestTokenize(t *testing.T) {
	t.Run("language from the hint or the path", func(t *testing.T) {
		for _, tc := range []struct{ path, lang, want string }{
			{"a.go", "", "go"},
			{"a.GO", "", ""}, // chroma's patterns are case-sensitive: not decided by a.go's
			{"x.py", "", "python"},
			{"notes.zzz", "", ""},
			{"noext", "go", "go"},
			{"Makefile", "", "makefile"},
			{"a.txt", "", ""},               // plain text: nothing to highlight
			{"CMakeLists.txt", "", "cmake"}, // a whole name: not decided by a.txt's
			{"b.txt", "", ""},
		} {
			if got := LanguageName(tc.path, tc.lang); got != tc.want {
				t.Errorf("LanguageName(%q, %q) = %q, want %q", tc.path, tc.lang, got, tc.want)
			}
		}
	})
	t.Run("multi-line construct spans lines", func(t *testing.T) {
		spans, known, err := Tokenize("a.go", "", []string{"x := `raw", "still raw`"})
		if err != nil || !known || len(spans) != 2 || len(spans[1]) == 0 || !strings.HasPrefix(spans[1][0].Type, "LiteralString") {
			t.Errorf("raw string across lines not recognized: %+v %v %v", spans, known, err)
		}
	})
	t.Run("columns are UTF-16 units and whitespace has no span", func(t *testing.T) {
		spans, _, _ := Tokenize("a.go", "", []string{`s := "𝄞" + x`})
		want := []highlight.Span{{Start: 0, End: 1, Type: "NameOther"}, {Start: 2, End: 4, Type: "Operator"}, {Start: 5, End: 9, Type: "LiteralString"}, {Start: 10, End: 11, Type: "Operator"}, {Start: 12, End: 13, Type: "NameOther"}}
		if len(spans) != 1 || len(spans[0]) != len(want) {
			t.Fatalf("got %+v", spans)
		}
		for i, sp := range spans[0] {
			if sp.Start != want[i].Start || sp.End != want[i].End || !strings.HasPrefix(sp.Type, want[i].Type) {
				t.Errorf("span %d = %+v, want %+v", i, sp, want[i])
			}
		}
	})
	t.Run("unknown language", func(t *testing.T) {
		if got, known, err := Tokenize("a.zzz", "", []string{"x"}); got != nil || known || err != nil {
			t.Errorf("got %v %v %v", got, known, err)
		}
	})
}

// serve runs Serve over the given request frames and returns the answers
// by id.
func serve(t *testing.T, workers int, reqs ...highlight.Request) map[uint64]highlight.Answer {
	t.Helper()
	var in []byte
	for _, q := range reqs {
		in = highlight.AppendRequest(in, q)
	}
	var out bytes.Buffer
	if err := Serve(bytes.NewReader(in), &out, workers); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	r := bufio.NewReader(&out)
	line, _ := r.ReadString('\n')
	if line != highlight.ProtocolLine+"\n" {
		t.Fatalf("protocol line %q", line)
	}
	got := map[uint64]highlight.Answer{}
	for {
		a, err := highlight.ReadAnswer(r)
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("answer: %v", err)
		}
		got[a.ID] = a
	}
}

func TestServe(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")[:300]
	t.Run("answers every request, in parallel, as Tokenize would", func(t *testing.T) {
		var reqs []highlight.Request
		for i := range 20 {
			reqs = append(reqs, highlight.Request{ID: uint64(i + 1), Path: "/w/server.go", Lines: lines[i : i+100]})
		}
		reqs = append(reqs, highlight.Request{ID: 99, Path: "/w/notes.txt", Lines: []string{"x"}})
		got := serve(t, 4, reqs...)
		if len(got) != 21 || !got[99].Unknown {
			t.Fatalf("%d answers; unknown: %+v", len(got), got[99])
		}
		for _, q := range reqs[:20] {
			want, _, _ := Tokenize(q.Path, "", q.Lines)
			a := got[q.ID]
			if a.Err != "" || len(a.Tokens) != 100 {
				t.Fatalf("answer %d: %+v", q.ID, a)
			}
			for i := range want {
				if len(want[i]) != len(a.Tokens[i]) || (len(want[i]) > 0 && want[i][0] != a.Tokens[i][0]) {
					t.Fatalf("answer %d line %d: %+v, want %+v", q.ID, i, a.Tokens[i], want[i])
				}
			}
		}
	})
	t.Run("a truncated frame is an error after the answers before it", func(t *testing.T) {
		in := highlight.AppendRequest(nil, highlight.Request{ID: 1, Path: "a.go", Lines: []string{"package a"}})
		bad := highlight.AppendRequest(nil, highlight.Request{ID: 2, Path: "a.go", Lines: []string{"package b"}})
		in = append(in, bad[:len(bad)-3]...)
		var out bytes.Buffer
		if err := Serve(bytes.NewReader(in), &out, 1); err == nil {
			t.Error("no error for a truncated frame")
		}
		r := bufio.NewReader(&out)
		r.ReadString('\n')
		if a, err := highlight.ReadAnswer(r); err != nil || a.ID != 1 || len(a.Tokens) != 1 {
			t.Errorf("first answer %+v %v", a, err)
		}
	})
}

// BenchmarkTokenize2000 tokenizes a 2,000-line Go file; see ns/line.
func BenchmarkTokenize2000(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")[:2000]
	Tokenize("a.go", "", lines[:1]) // warm the lexer cache
	b.ReportAllocs()
	for b.Loop() {
		if got, _, _ := Tokenize("a.go", "", lines); len(got) != 2000 {
			b.Fatal(len(got))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2000, "ns/line")
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
