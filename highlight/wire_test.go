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
