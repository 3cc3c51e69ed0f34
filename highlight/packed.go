package highlight

import (
	"strconv"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// PackedLines is a card's tokens in the packed form a client asks for with
// `_meta.dsh.packedTokens: true` (docs/meta-dsh.md): a sixth of the
// bytes of TokenLines' objects, for the bridge to write and the editor to
// parse (net/http's server.go, 100 lines at a time: 1.9 KB against
// 11.3 KB).
type PackedLines TokenLines

// AppendJSON writes {"lines":[[gap,length,type,…]|null,…],"types":[…]}:
// per line, three numbers per span, gap being the UTF-16 code units from
// the end of the line's previous span (its start, for the first) to the
// span's start, length the span's, and type an index into types, which
// lists each type name used, once, in order of first use. A line past
// MaxSpans stays null, a line without spans is []. A span that starts
// before the previous one ends, or ends before it starts (no tokenizer of
// ours makes one), is left out rather than written with a negative
// number.
func (p PackedLines) AppendJSON(dst []byte) ([]byte, error) {
	if p == nil {
		return append(dst, "null"...), nil
	}
	var types []string
	last := -1 // types' index of the previous span's type: runs of one type are common
	index := func(t string) int {
		if last >= 0 && types[last] == t {
			return last
		}
		for i, n := range types {
			if n == t {
				last = i
				return i
			}
		}
		types = append(types, t)
		last = len(types) - 1
		return last
	}
	dst = append(dst, `{"lines":[`...)
	for i, line := range p {
		if i > 0 {
			dst = append(dst, ',')
		}
		if line == nil {
			dst = append(dst, "null"...)
			continue
		}
		dst = append(dst, '[')
		end, first := 0, true
		for _, sp := range line {
			if sp.Start < end || sp.End < sp.Start {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = strconv.AppendInt(dst, int64(sp.Start-end), 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(sp.End-sp.Start), 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(index(sp.Type)), 10)
			end = sp.End
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `],"types":[`...)
	for i, t := range types {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendString(dst, t)
	}
	return append(dst, "]}"...), nil
}

// MarshalJSON is AppendJSON for encoding/json.
func (p PackedLines) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }
