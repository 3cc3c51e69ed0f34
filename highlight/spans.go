package highlight

import (
	"strconv"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Span is one syntax token on a line: [Start, End) in UTF-16 code units (as
// editors count) and chroma's token type name, for example
// "KeywordDeclaration" or "LiteralStringDouble".
type Span struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Type  string `json:"type"`
}

// MaxSpans bounds a card's tokens: past it, the rest of the lines have no
// spans. A read of 2,000 lines of Go has some 10,000; 2,000 lines of
// 2,000 characters built as "a+a+a+…" would have 4 million, 180 MB of
// JSON in one update that no editor could draw (and the memory to make
// it), from a file the model may have written itself.
const MaxSpans = 1 << 16

// TokenLines is a card's tokens, a list of spans per line (nil for a line
// without any). It writes itself as JSON in one loop (a 2,000-line read
// has some 20,000 spans).
type TokenLines [][]Span

// AppendJSON writes [[{"start":s,"end":e,"type":"…"},…],…].
func (ts TokenLines) AppendJSON(dst []byte) ([]byte, error) {
	if ts == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, line := range ts {
		if i > 0 {
			dst = append(dst, ',')
		}
		if line == nil {
			dst = append(dst, "null"...)
			continue
		}
		dst = append(dst, '[')
		for j, sp := range line {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"start":`...)
			dst = strconv.AppendInt(dst, int64(sp.Start), 10)
			dst = append(dst, `,"end":`...)
			dst = strconv.AppendInt(dst, int64(sp.End), 10)
			dst = append(dst, `,"type":`...)
			dst = jsonv.AppendString(dst, sp.Type)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, ']'), nil
}
