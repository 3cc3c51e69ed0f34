package highlight

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// goTokens returns a function that gives the real helper's tokens for
// lines of a Go file, through a client closed when t ends.
func goTokens(t testing.TB) func(lines []string) TokenLines {
	c := New(Options{Path: helperBin, Log: quiet})
	t.Cleanup(func() { c.Close() })
	return func(lines []string) TokenLines {
		t.Helper()
		ts, err := c.Tokens(context.Background(), "/w/x.go", "", lines)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
}

// unpack decodes PackedLines' JSON with its UnmarshalJSON, as an editor
// does, after checking that every line is whole triples of whole numbers
// (the decoder itself is lenient, as editors are).
func unpack(t testing.TB, raw []byte) TokenLines {
	t.Helper()
	var shape struct {
		Lines [][]int `json:"lines"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	for i, l := range shape.Lines {
		if len(l)%3 != 0 {
			t.Fatalf("line %d: %d numbers, not triples: %s", i, len(l), raw)
		}
	}
	var p PackedLines
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return TokenLines(p)
}

// TestPackedLines_Unmarshal: what does not fit is left out, a line at a
// time, as the extensions do; only JSON of another shape is an error.
func TestPackedLines_Unmarshal(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     TokenLines
	}{
		{"a type out of range", `{"lines":[[0,2,5]],"types":["Keyword"]}`, TokenLines{{}}},
		{"a negative gap ends the line", `{"lines":[[0,2,0,-1,2,0]],"types":["Keyword"]}`, TokenLines{{{0, 2, "Keyword"}}}},
		{"a short triple", `{"lines":[[0,2,0,1,2]],"types":["Keyword"]}`, TokenLines{{{0, 2, "Keyword"}}}},
		{"lines that are not lists of whole numbers", `{"lines":["x",3,null,[0.5,1,0],[1,1,0,"a",1,0]],"types":["Keyword"]}`, TokenLines{nil, nil, nil, {}, {{1, 2, "Keyword"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p PackedLines
			if err := json.Unmarshal([]byte(tc.in), &p); err != nil || !reflect.DeepEqual(TokenLines(p), tc.want) {
				t.Errorf("got %v, %v; want %v", p, err, tc.want)
			}
		})
	}
	for _, bad := range []string{`{"lines":[[0,1,0]]}`, `{"types":[]}`, `"junk"`, `[1,2]`} {
		var p PackedLines
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s: no error, %v", bad, p)
		}
	}
}

// manyTypes is one line of n one-unit spans, each of a type of its own,
// and manyTypesJSON its packed form.
func manyTypes(n int) TokenLines {
	line := make([]Span, n)
	for i := range line {
		line[i] = Span{Start: i, End: i + 1, Type: fmt.Sprintf("T%d", i%n)}
	}
	return TokenLines{line, line[:2]}
}

func manyTypesJSON(n int) string {
	var nums, names []string
	for i := range n {
		nums = append(nums, fmt.Sprintf("0,1,%d", i))
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("T%d", i)))
	}
	return `{"lines":[[` + strings.Join(nums, ",") + `],[0,1,0,0,1,1]],"types":[` + strings.Join(names, ",") + `]}`
}

func TestPackedLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   TokenLines
		want string     // the JSON
		back TokenLines // what an editor decodes, when not in
	}{
		{"no lines", TokenLines{}, `{"lines":[],"types":[]}`, nil},
		{"gaps from the previous span's end",
			TokenLines{{{0, 7, "KeywordNamespace"}, {8, 12, "NameOther"}}, {{1, 4, "KeywordDeclaration"}, {5, 9, "NameFunction"}, {9, 10, "Punctuation"}}},
			`{"lines":[[0,7,0,1,4,1],[1,3,2,1,4,3,0,1,4]],"types":["KeywordNamespace","NameOther","KeywordDeclaration","NameFunction","Punctuation"]}`, nil},
		{"a type used again keeps its index",
			TokenLines{{{0, 2, "Comment"}, {3, 4, "Operator"}}, {{0, 9, "Comment"}}},
			`{"lines":[[0,2,0,1,1,1],[0,9,0]],"types":["Comment","Operator"]}`, nil},
		{"lines without spans, and past the budget",
			TokenLines{{}, {{2, 3, "Operator"}}, nil, nil},
			`{"lines":[[],[2,1,0],null,null],"types":["Operator"]}`, nil},
		{"a span overlapping the previous one is left out",
			TokenLines{{{0, 5, "Name"}, {3, 6, "Operator"}, {6, 8, "Name"}}},
			`{"lines":[[0,5,0,1,2,0]],"types":["Name"]}`,
			TokenLines{{{0, 5, "Name"}, {6, 8, "Name"}}}},
		{"a span that ends before it starts is left out",
			TokenLines{{{4, 2, "Name"}, {4, 5, "Operator"}}},
			`{"lines":[[4,1,0]],"types":["Operator"]}`,
			TokenLines{{{4, 5, "Operator"}}}},
		{"the same name in another string keeps its index",
			TokenLines{{{0, 2, "Comment"}, {3, 4, strings.Clone("Operator")}, {5, 6, strings.Clone("Comment")}, {6, 7, "Operator"}}},
			`{"lines":[[0,2,0,1,1,1,1,1,0,0,1,1]],"types":["Comment","Operator"]}`, nil},
		{"more types than the first array holds", manyTypes(40), manyTypesJSON(40), nil},
		{"a type name is escaped",
			TokenLines{{{0, 1, `a"b`}}},
			`{"lines":[[0,1,0]],"types":["a\"b"]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PackedLines(tc.in).AppendJSON(nil)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tc.want)
			}
			back := tc.back
			if back == nil {
				back = tc.in
			}
			if u := unpack(t, got); !reflect.DeepEqual(u, back) {
				t.Errorf("decoded %v, want %v", u, back)
			}
		})
	}
	if got, _ := PackedLines(nil).AppendJSON(nil); string(got) != "null" {
		t.Errorf("nil: %s", got)
	}
}

// TestPackedLines_GoSource: every 100-line window of net/http's server.go
// decodes to exactly the spans the helper made, in under a quarter of the
// bytes of the objects (a sixth, when written).
func TestPackedLines_GoSource(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var objects, packed int
	tokens := goTokens(t)
	for from := 0; from+100 <= len(lines); from += 100 {
		ts := tokens(lines[from : from+100])
		p, _ := PackedLines(ts).AppendJSON(nil)
		o, _ := ts.AppendJSON(nil)
		if u := unpack(t, p); !reflect.DeepEqual(u, ts) {
			for i := range ts {
				if !reflect.DeepEqual(u[i], ts[i]) {
					t.Fatalf("line %d: decoded %v, made %v", from+i+1, u[i], ts[i])
				}
			}
		}
		objects, packed = objects+len(o), packed+len(p)
	}
	if packed*4 > objects {
		t.Errorf("packed %d bytes against %d as objects: not under a quarter", packed, objects)
	}
	t.Logf("packed %d bytes, objects %d (%.2f)", packed, objects, float64(packed)/float64(objects))
}

// FuzzPackedLines: whatever the text, the helper's Go spans survive packing.
func FuzzPackedLines(f *testing.F) {
	for _, s := range []string{"package main\n\nfunc f() {}\n", "a := `x\ny`\n/* é\n*/ b", "\t\"\\u00e9\" 'x' 0x1p-2i\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts := goTokens(t)(strings.Split(s, "\n"))
		p, err := PackedLines(ts).AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if u := unpack(t, p); !reflect.DeepEqual(u, ts) {
			t.Errorf("%q: decoded %v, made %v", s, u, ts)
		}
	})
}

func ExamplePackedLines() {
	ts := TokenLines{{{0, 4, "KeywordDeclaration"}, {5, 9, "NameFunction"}}, {}}
	b, _ := PackedLines(ts).AppendJSON(nil)
	fmt.Println(string(b))
	// Output: {"lines":[[0,4,0,1,4,1],[]],"types":["KeywordDeclaration","NameFunction"]}
}

// BenchmarkAppend100 writes the tokens of 100 lines of net/http's
// server.go, packed and as objects.
func BenchmarkAppend100(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	ts := goTokens(b)(strings.Split(string(src), "\n")[1000:1100])
	buf := make([]byte, 0, 64<<10)
	b.Run("packed", func(b *testing.B) {
		for b.Loop() {
			buf, _ = PackedLines(ts).AppendJSON(buf[:0])
		}
		b.ReportMetric(float64(len(buf)), "bytes")
	})
	b.Run("objects", func(b *testing.B) {
		for b.Loop() {
			buf, _ = ts.AppendJSON(buf[:0])
		}
		b.ReportMetric(float64(len(buf)), "bytes")
	})
}
