package highlight

import (
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/highlight/golex"
)

// IsGo reports whether the helper would tokenize (path, lang) with
// chroma's Go lexer: the hint "go" or "golang" (in any case), or no hint
// and a path ending in ".go". Only then may [GoLines] stand in for it.
func IsGo(path, lang string) bool {
	if lang != "" {
		return strings.EqualFold(lang, "go") || strings.EqualFold(lang, "golang")
	}
	return filepath.Ext(path) == ".go"
}

// GoLines is the helper's answer for Go lines, made here by package golex
// (in microseconds, with no helper to start or wake): the lines are
// highlighted as one text, and each line gets its spans in UTF-16 code
// units, white space and plain text left out, exactly as the helper's
// chroma path gives them, up to [MaxSpans] in all. False when golex
// refuses the text (the helper then asks chroma).
func GoLines(lines []string) (TokenLines, bool) {
	if len(lines) == 0 {
		return TokenLines{}, true
	}
	text := joinLines(lines)
	out := make(TokenLines, len(lines))
	// Every line's spans go into one shared array, each line a full slice
	// of its own stretch of it (a 100-line read has some 450 spans).
	spans := make([]Span, 0, min(len(text)/6, MaxSpans))
	line, col, first, total := 0, 0, 0, 0
	cut := func() { // ends the current line's stretch
		if len(spans) > first {
			out[line] = spans[first:len(spans):len(spans)]
		}
		first = len(spans)
	}
	ok := golex.Each(text, func(tok golex.Token) {
		if golex.Inline(tok.Type) && total < MaxSpans { // one span, its bytes its columns
			if len(spans) == cap(spans) {
				spans = append(make([]Span, 0, 2*cap(spans)+16), spans[first:]...)
				first = 0
			}
			n := tok.End - tok.Start
			total++
			spans = append(spans, Span{Start: col, End: col + n, Type: tok.Type.String()})
			col += n
			return
		}
		for v := text[tok.Start:tok.End]; line < len(lines); {
			part, rest, more := cutLine(v)
			w := utf16Len(part)
			if w > 0 && total < MaxSpans && strings.TrimSpace(part) != "" { // white space (golex's TextWhitespace included) has no span
				total++
				if len(spans) == cap(spans) { // a new array: the stretches cut so far keep theirs
					spans = append(make([]Span, 0, 2*cap(spans)+16), spans[first:]...)
					first = 0
				}
				spans = append(spans, Span{Start: col, End: col + w, Type: tok.Type.String()})
			}
			col += w
			if !more {
				return
			}
			cut()
			line, col, v = line+1, 0, rest
		}
	})
	if !ok {
		return nil, false
	}
	if line < len(lines) {
		cut()
	}
	return out, true
}

// utf16Len counts s in UTF-16 code units (ASCII at a byte each).
func utf16Len(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 { // ASCII, eight bytes at a time
		b := s[i : i+8] // one bounds check, and the eight loads become one
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n := i
			for _, r := range s[i:] {
				n += utf16.RuneLen(r)
			}
			return n
		}
	}
	return len(s)
}
