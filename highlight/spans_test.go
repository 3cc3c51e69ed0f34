package highlight

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestTokenLines_AppendJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		ts   TokenLines
	}{
		{"nil", nil},
		{"lines without spans", TokenLines{nil, {}}},
		{"spans", TokenLines{{{0, 7, "KeywordNamespace"}, {8, 12, "NameOther"}}, {}, {{1, 2, "Punctuation"}}}},
		{"escapes", TokenLines{{{0, 1, "we\"ird\\type<>"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ts.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal([][]Span(tc.ts))
			var a, b any
			if err := json.Unmarshal(got, &a); err != nil {
				t.Fatalf("not JSON: %s: %v", got, err)
			}
			_ = json.Unmarshal(want, &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// BenchmarkTokenLinesAppendJSON encodes the tokens of a 100-line read
// (ReadAnswer's, so the spans share their type names).
func BenchmarkTokenLinesAppendJSON(b *testing.B) {
	frame := AppendAnswer(nil, Answer{ID: 1, Tokens: benchTokens()})
	a, err := ReadAnswer(bufio.NewReader(bytes.NewReader(frame)))
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = a.Tokens.AppendJSON(buf[:0])
	}
}
