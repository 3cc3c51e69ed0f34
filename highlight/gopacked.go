package highlight

import (
	"strings"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/highlight/golex"
)

// Packed is tokens already written in the packed form ([PackedLines]'
// JSON): what a client that asked for packed tokens receives. Nil is
// written as null.
type Packed []byte

// AppendJSON appends p as it is.
func (p Packed) AppendJSON(dst []byte) ([]byte, error) {
	if p == nil {
		return append(dst, "null"...), nil
	}
	return append(dst, p...), nil
}

// MarshalJSON is AppendJSON for encoding/json.
func (p Packed) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }

// Pack writes ts in the packed form.
func Pack(ts TokenLines) Packed {
	b, _ := PackedLines(ts).AppendJSON(nil) // it fails on nothing
	return b
}

// GoPacked is Pack(GoLines(lines)) in one pass: the spans golex finds are
// written as they come, with no span, line slice or type name made in
// between. A read of Go is the read agents make most, and in the bridge
// these were a tenth of its CPU per read. False when golex refuses the
// text, as GoLines.
func GoPacked(lines []string) (Packed, bool) {
	if len(lines) == 0 {
		return Pack(TokenLines{}), true
	}
	text := joinLines(lines)
	w := goPacker{dst: make([]byte, 0, 64+len(text))} // the packed form is some 0.9 of the text (100 lines of net/http)
	for i := range w.index {
		w.index[i] = -1
	}
	w.dst = append(w.dst, `{"lines":[`...)
	w.startLine()
	ok := golex.Each(text, func(tok golex.Token) {
		if golex.Inline(tok.Type) { // most tokens: one span, its bytes its columns
			n := tok.End - tok.Start
			if w.total < MaxSpans {
				w.span(n, tok.Type)
			}
			w.col += n
			return
		}
		for v := text[tok.Start:tok.End]; w.line < len(lines); {
			part, rest, more := cutLine(v)
			n := utf16Len(part)
			if n > 0 && w.total < MaxSpans && !blank(part) {
				w.span(n, tok.Type)
			}
			w.col += n
			if !more {
				return
			}
			w.endLine()
			w.line, v = w.line+1, rest
			if w.line < len(lines) {
				w.startLine()
			}
		}
	})
	if !ok {
		return nil, false
	}
	if w.line < len(lines) {
		w.endLine()
	}
	w.dst = append(w.dst, `],"types":[`...)
	for i, t := range w.types {
		if i > 0 {
			w.dst = append(w.dst, ',')
		}
		w.dst = append(append(append(w.dst, '"'), t.String()...), '"') // golex's names need no escaping
	}
	return append(w.dst, "]}"...), true
}

// joinLines is the lines joined, each ended by a newline, in one
// allocation.
func joinLines(lines []string) string {
	n := len(lines)
	for _, l := range lines {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// cutLine is strings.Cut(s, "\n"), without Cut's general search.
func cutLine(s string) (before, after string, found bool) {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// goPacker is GoPacked's state: where the current line's output stands
// and which types have a number.
type goPacker struct {
	dst        []byte
	line, col  int
	end        int  // the end of the line's last span written
	open       bool // the line's "[" is written
	total      int  // spans written
	index      [golex.NumTypes]int8
	types      []golex.Type
	typesSmall [golex.NumTypes]golex.Type
}

// startLine begins a line: its separator; its opening waits for a span.
func (w *goPacker) startLine() {
	if w.line > 0 {
		w.dst = append(w.dst, ',')
	}
	w.col, w.end, w.open = 0, 0, false
}

// endLine closes the line: null when no span was written on it (as
// GoLines leaves such a line nil).
func (w *goPacker) endLine() {
	if w.open {
		w.dst = append(w.dst, ']')
	} else {
		w.dst = append(w.dst, "null"...)
	}
}

// span writes the span of n UTF-16 units at the current column.
func (w *goPacker) span(n int, typ golex.Type) {
	if w.open {
		w.dst = append(w.dst, ',')
	} else {
		w.dst, w.open = append(w.dst, '['), true
	}
	i := w.index[typ]
	if i < 0 {
		if w.types == nil {
			w.types = w.typesSmall[:0]
		}
		i = int8(len(w.types))
		w.index[typ] = i
		w.types = append(w.types, typ)
	}
	w.dst = appendSmall(w.dst, w.col-w.end)
	w.dst = append(w.dst, ',')
	w.dst = appendSmall(w.dst, n)
	w.dst = append(w.dst, ',')
	w.dst = appendSmall(w.dst, int(i))
	w.end = w.col + n
	w.total++
}

// blank reports whether s is white space only, as strings.TrimSpace
// sees it (Unicode's), without its work for ASCII text.
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return strings.TrimSpace(s[i:]) == ""
		case c != ' ' && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r':
			return false
		}
	}
	return true
}
