package highlight

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestWire_RoundTrip: requests and answers come back as they were sent,
// whatever the lines' span counts (none, a few, more than a chunk), and
// no line's spans can grow into the next line's.
func TestWire_RoundTrip(t *testing.T) {
	req := Request{ID: 7, Path: "/w/a b.go", Lang: "go", Lines: []string{"package x", "", strings.Repeat("é", 300)}}
	got, err := ReadRequest(bufio.NewReader(bytes.NewReader(AppendRequest([]byte("keep"), req)[4:])))
	if err != nil || !reflect.DeepEqual(got, req) {
		t.Fatalf("request %+v (%v), want %+v", got, err, req)
	}
	for _, counts := range [][]int{{}, {0}, {3, 0, 5}, {spanChunk - 2, 4}, {spanChunk + 1, 2, spanChunk}, {1, 1, 1, 1}} {
		t.Run(fmt.Sprint(counts), func(t *testing.T) {
			a := Answer{ID: 9, Tokens: TokenLines{}}
			for i, n := range counts {
				var line []Span
				for j := range n {
					line = append(line, Span{Start: 2 * j, End: 2*j + 1, Type: fmt.Sprintf("T%d", (i+j)%3)})
				}
				a.Tokens = append(a.Tokens, line)
			}
			back, err := ReadAnswer(bufio.NewReader(bytes.NewReader(AppendAnswer(nil, a))))
			if err != nil || !reflect.DeepEqual(back, a) {
				t.Fatalf("answer %+v (%v), want %+v", back, err, a)
			}
			for i, line := range back.Tokens {
				if cap(line) != len(line) && len(line) <= spanChunk {
					t.Errorf("line %d: cap %d for %d spans: an append would overwrite the next line's", i, cap(line), len(line))
				}
			}
		})
	}
}

// BenchmarkReadAnswer reads the answer for a 100-line read of Go: about
// 450 spans of 15 types, with offsets up to a line's length.
func BenchmarkReadAnswer(b *testing.B) {
	frame := AppendAnswer(nil, Answer{ID: 12345, Tokens: benchTokens()})
	r := bufio.NewReaderSize(nil, 64<<10)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(bytes.NewReader(frame))
		if _, err := ReadAnswer(r); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTokens are a 100-line read of Go's tokens: about 450 spans of 15
// types, with offsets up to a line's length.
func benchTokens() TokenLines {
	types := []string{"Keyword", "KeywordDeclaration", "NameFunction", "NameOther", "Punctuation", "Operator",
		"LiteralString", "LiteralNumberInteger", "Comment", "CommentSingle", "NameBuiltin", "KeywordType",
		"LiteralStringEscape", "NameVariable", "Text"}
	var ts TokenLines
	for i := range 100 {
		var line []Span
		for j := range 4 + i%2 {
			line = append(line, Span{Start: 1 + 12*j, End: 1 + 12*j + 3 + (i+j)%7, Type: types[(i*3+j)%len(types)]})
		}
		ts = append(ts, line)
	}
	return ts
}

// TestReadAnswer_MaxSpans: an answer of more spans than MaxSpans keeps
// MaxSpans of them (later lines have none), and is read to its end: the
// next answer on the stream is whole.
func TestReadAnswer_MaxSpans(t *testing.T) {
	line := make([]Span, 1000)
	for j := range line {
		line[j] = Span{Start: 2 * j, End: 2*j + 1, Type: "Operator"}
	}
	big := Answer{ID: 1}
	for range 70 { // 70,000 spans
		big.Tokens = append(big.Tokens, line)
	}
	small := Answer{ID: 2, Tokens: TokenLines{{{Start: 0, End: 3, Type: "Keyword"}}}}
	r := bufio.NewReader(bytes.NewReader(AppendAnswer(AppendAnswer(nil, big), small)))
	got, err := ReadAnswer(r)
	if err != nil || len(got.Tokens) != 70 {
		t.Fatalf("%d lines, %v", len(got.Tokens), err)
	}
	total := 0
	for i, l := range got.Tokens {
		total += len(l)
		if want := min(1000, max(0, MaxSpans-1000*i)); len(l) != want || (want > 0 && !reflect.DeepEqual(l, line[:want])) {
			t.Fatalf("line %d: %d spans, want the first %d", i, len(l), want)
		}
	}
	if total != MaxSpans {
		t.Errorf("%d spans kept, want %d", total, MaxSpans)
	}
	if next, err := ReadAnswer(r); err != nil || !reflect.DeepEqual(next, small) {
		t.Errorf("the next answer: %+v, %v", next, err)
	}
}
