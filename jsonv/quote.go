package jsonv

import (
	"math/bits"
	"slices"
	"unicode/utf8"
)

// AppendString appends s as a JSON string. Invalid UTF-8 (which a Value
// never holds, but tool output may) becomes U+FFFD, as encoding/json
// does, so the result is always valid JSON. HTML characters and U+2028/9
// are written as they are.
//
// Source text is mostly runs of plain ASCII between tabs and newlines:
// the runs are skipped eight bytes at a time, straight to the next byte
// that needs a look, and copied whole.
func AppendString(dst []byte, s string) []byte {
	// Room for s unescaped, grown as append grows (by doubling): callers
	// append many strings to one buffer (a card's lines, a value's).
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			// A word at a time, inlined into the loop.
			m := specialIn(load64(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				start = i
			} else {
				i += size
			}
			continue
		}
		esc := escapes[c]
		if esc == 0 {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if esc == 'u' {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		} else {
			dst = append(dst, '\\', esc)
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// escapes[c] is, for an ASCII byte c, 0 when a JSON string holds it as it
// is, the letter of its two-character escape (`\n`: 'n', `\"`: '"'), or
// 'u' when it is written \u00XX.
var escapes = [utf8.RuneSelf]byte{
	0x00: 'u', 0x01: 'u', 0x02: 'u', 0x03: 'u', 0x04: 'u', 0x05: 'u', 0x06: 'u', 0x07: 'u',
	'\b': 'b', '\t': 't', '\n': 'n', 0x0b: 'u', '\f': 'f', '\r': 'r', 0x0e: 'u', 0x0f: 'u',
	0x10: 'u', 0x11: 'u', 0x12: 'u', 0x13: 'u', 0x14: 'u', 0x15: 'u', 0x16: 'u', 0x17: 'u',
	0x18: 'u', 0x19: 'u', 0x1a: 'u', 0x1b: 'u', 0x1c: 'u', 0x1d: 'u', 0x1e: 'u', 0x1f: 'u',
	'"': '"', '\\': '\\',
}

// specialIn marks, with its high bit, each byte of the word w (eight
// bytes of a string, the first lowest) that is not plain ASCII needing no
// escape: below 0x20, at or above 0x80, '"' or '\\'. Each test is the
// word-at-a-time "does some byte ..." test; a borrow can mark a plain byte
// above a marked one, never one below it, so the lowest mark is exactly
// the first such byte.
func specialIn(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	below := (w - ones*0x20) &^ w // a byte below 0x20 sets its high bit
	zeroQ := (quote - ones) &^ quote
	zeroB := (backslash - ones) &^ backslash
	return (w | below | zeroQ | zeroB) & highs
}

// load64 is s[i:i+8] as a little-endian word: one bounds check, and the
// eight loads become one.
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
