package highlight

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// PackedLines is a card's tokens in the packed form a client asks for with
// `_meta.dsh.packedTokens: true` (docs/meta-dsh.md): a fraction of the
// bytes of TokenLines' objects, for the bridge to write and the editor to
// parse.
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
	var names typeNames
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
			dst = appendSmall(dst, sp.Start-end)
			dst = append(dst, ',')
			dst = appendSmall(dst, sp.End-sp.Start)
			dst = append(dst, ',')
			dst = appendSmall(dst, names.index(sp.Type))
			end = sp.End
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `],"types":[`...)
	for i, t := range names.list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendString(dst, t)
	}
	return append(dst, "]}"...), nil
}

// typeNames numbers the type names of one update in order of first use.
// The names are nearly always the few strings of one answer's type table
// (wire.go), shared by its spans, so the same string is looked for by its
// address first.
type typeNames struct {
	list  []string
	small [32]string // list's first array
	last  int        // list's index of the name found last
}

func (n *typeNames) index(t string) int {
	if n.list == nil {
		n.list = n.small[:0]
	}
	if n.last < len(n.list) && n.list[n.last] == t {
		return n.last
	}
	p := unsafe.StringData(t)
	for i, s := range n.list {
		if unsafe.StringData(s) == p && len(s) == len(t) {
			n.last = i
			return i
		}
	}
	for i, s := range n.list { // the same name in another string
		if s == t {
			n.last = i
			return i
		}
	}
	n.list = append(n.list, t)
	n.last = len(n.list) - 1
	return n.last
}

// appendSmall appends n ≥ 0 in decimal; most of a packed line's numbers
// are a digit or two, written here without a call.
func appendSmall(dst []byte, n int) []byte {
	switch u := uint(n); { // a negative n is large here, and left to strconv
	case u < 10:
		return append(dst, byte('0'+u))
	case u < 100:
		return append(dst, byte('0'+u/10), byte('0'+u%10))
	}
	return strconv.AppendInt(dst, int64(n), 10)
}

// MarshalJSON is AppendJSON for encoding/json.
func (p PackedLines) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }

// UnmarshalJSON reads the packed form back into spans, as an editor does
// (the extensions' unpackTokens and unpack_tokens do the same): a line
// stops at its first triple that does not fit (a negative number, a type
// index out of range, a short triple), a line that is not a list (null) is
// nil. Tokens are decoration: only JSON that is not of the
// {"lines":[…],"types":[…]} shape is an error.
func (p *PackedLines) UnmarshalJSON(data []byte) error {
	var w struct {
		Lines []json.RawMessage `json:"lines"`
		Types []string          `json:"types"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("highlight: packed tokens: %w", err)
	}
	if w.Lines == nil || w.Types == nil {
		return fmt.Errorf("highlight: packed tokens without lines or types: %.100s", data)
	}
	out := make(PackedLines, len(w.Lines))
	for i, raw := range w.Lines {
		var nums []json.RawMessage
		if json.Unmarshal(raw, &nums) != nil || nums == nil {
			continue // null, or not a list
		}
		line, end := []Span{}, 0
		for j := 0; j+2 < len(nums); j += 3 {
			gap, err1 := strconv.Atoi(string(nums[j])) // whole numbers only
			n, err2 := strconv.Atoi(string(nums[j+1]))
			t, err3 := strconv.Atoi(string(nums[j+2]))
			if err1 != nil || err2 != nil || err3 != nil || gap < 0 || n < 0 || t < 0 || t >= len(w.Types) {
				break
			}
			start := end + gap
			end = start + n
			line = append(line, Span{Start: start, End: end, Type: w.Types[t]})
		}
		out[i] = line
	}
	*p = out
	return nil
}

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
