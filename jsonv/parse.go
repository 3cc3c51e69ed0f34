package jsonv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrNotLossless is the sentinel every lossless-JSON failure wraps: bytes that
// are not JSON, or JSON (or Go data) that would not survive a round trip.
var ErrNotLossless = errors.New("not lossless JSON")

// JSONError reports where and why input is not lossless JSON.
type JSONError struct {
	Offset int // byte offset in the input, or -1 for values built in Go
	Msg    string
}

func (e *JSONError) Error() string {
	if e.Offset < 0 {
		return "not lossless JSON: " + e.Msg
	}
	return fmt.Sprintf("invalid lossless JSON at byte %d: %s", e.Offset, e.Msg)
}

// Is makes errors.Is(err, ErrNotLossless) true.
func (e *JSONError) Is(target error) bool { return target == ErrNotLossless }

func errLossy(msg string) error { return &JSONError{Offset: -1, Msg: msg} }

// Parse decodes exactly one lossless JSON value from data. It rejects
// duplicate object keys, negative zero in any spelling, numbers beyond the
// finite float64 range, invalid UTF-8, lone surrogate escapes and trailing
// data. Nesting depth is limited only by memory: the parser keeps its own
// stack. The result shares no memory with data.
func Parse(data []byte) (Value, error) {
	p := parser{data: data}
	return p.parse()
}

// ParseString is Parse for a string.
func ParseString(s string) (Value, error) { return Parse([]byte(s)) }

// MustParse is Parse for literals known to be valid; it panics otherwise.
func MustParse(s string) Value {
	v, err := ParseString(s)
	if err != nil {
		panic(err)
	}
	return v
}

type parser struct {
	data []byte
	pos  int
}

type parseFrame struct {
	object bool
	start  int
	keys   []string
	vals   []Value
	key    string
}

func (p *parser) fail(msg string) error { return &JSONError{Offset: p.pos, Msg: msg} }

func (p *parser) skipWS() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) parse() (Value, error) {
	var stack []parseFrame
	for {
		p.skipWS()
		if p.pos >= len(p.data) {
			return Value{}, p.fail("unexpected end of input")
		}
		var v Value
		switch c := p.data[p.pos]; {
		case c == '{' || c == '[':
			start := p.pos
			p.pos++
			p.skipWS()
			if c == '{' {
				if p.pos < len(p.data) && p.data[p.pos] == '}' {
					p.pos++
					v = Value{&node{kind: Object}}
					break
				}
				key, err := p.key()
				if err != nil {
					return Value{}, err
				}
				stack = append(stack, parseFrame{object: true, start: start, key: key})
				continue
			}
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				p.pos++
				v = Value{&node{kind: Array}}
				break
			}
			stack = append(stack, parseFrame{start: start})
			continue
		case c == '"':
			s, err := p.str()
			if err != nil {
				return Value{}, err
			}
			v = Value{&node{kind: String, s: s}}
		case c == 't':
			if err := p.literal("true"); err != nil {
				return Value{}, err
			}
			v = Value{trueNode}
		case c == 'f':
			if err := p.literal("false"); err != nil {
				return Value{}, err
			}
			v = Value{falseNode}
		case c == 'n':
			if err := p.literal("null"); err != nil {
				return Value{}, err
			}
			v = Value{nullNode}
		case c == '-' || (c >= '0' && c <= '9'):
			start := p.pos
			end := scanNumber(p.data, start)
			if end < 0 {
				return Value{}, p.fail("invalid number")
			}
			if err := checkNumber(p.data[start:end]); err != nil {
				return Value{}, &JSONError{Offset: start, Msg: err.(*JSONError).Msg}
			}
			p.pos = end
			v = Value{&node{kind: Number, s: string(p.data[start:end])}}
		default:
			return Value{}, p.fail(fmt.Sprintf("unexpected character %q", c))
		}
		// Attach the finished value to the open containers, closing as many
		// as the input closes.
		for {
			if len(stack) == 0 {
				p.skipWS()
				if p.pos != len(p.data) {
					return Value{}, p.fail("trailing data after the JSON value")
				}
				return v, nil
			}
			top := &stack[len(stack)-1]
			if top.object {
				top.keys = append(top.keys, top.key)
			}
			top.vals = append(top.vals, v)
			p.skipWS()
			if p.pos >= len(p.data) {
				return Value{}, p.fail("unexpected end of input")
			}
			c := p.data[p.pos]
			p.pos++
			if c == ',' {
				if top.object {
					p.skipWS()
					key, err := p.key()
					if err != nil {
						return Value{}, err
					}
					top.key = key
				}
				break
			}
			if top.object && c == '}' {
				obj, err := newObject(top.keys, top.vals)
				if err != nil {
					return Value{}, &JSONError{Offset: top.start, Msg: err.(*JSONError).Msg}
				}
				v = obj
			} else if !top.object && c == ']' {
				v = Value{&node{kind: Array, items: top.vals}}
			} else {
				p.pos--
				if top.object {
					return Value{}, p.fail("expected ',' or '}' in object")
				}
				return Value{}, p.fail("expected ',' or ']' in array")
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// key reads an object key and the colon after it.
func (p *parser) key() (string, error) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", p.fail("expected a string object key")
	}
	k, err := p.str()
	if err != nil {
		return "", err
	}
	p.skipWS()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return "", p.fail("expected ':' after object key")
	}
	p.pos++
	return k, nil
}

func (p *parser) literal(word string) error {
	if !strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		return p.fail("invalid literal")
	}
	p.pos += len(word)
	return nil
}

// str reads a string starting at the opening quote.
func (p *parser) str() (string, error) {
	text, end, at, msg := readString(p.data, p.pos)
	if msg != "" {
		p.pos = at
		return "", p.fail(msg)
	}
	p.pos = end
	return string(text), nil
}

// readString reads the JSON string whose opening quote is data[quote]:
// its text (a slice of data itself when the string has no escapes, else
// a new buffer) and the index just past its closing quote, or the reason
// it fails (invalid JSON, invalid UTF-8, lone surrogates) and where.
func readString(data []byte, quote int) (text []byte, end, at int, msg string) {
	start := quote + 1
	// Fast path: no escapes.
	for i := start; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			raw := data[start:i]
			if !utf8.Valid(raw) {
				return nil, 0, start, "string is not valid UTF-8"
			}
			return raw, i + 1, 0, ""
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, 0, i, "control character in string"
		}
	}
	var b []byte
	i := start
	for {
		if i >= len(data) {
			return nil, 0, i, "unterminated string"
		}
		c := data[i]
		switch {
		case c == '"':
			return b, i + 1, 0, ""
		case c < 0x20:
			return nil, 0, i, "control character in string"
		case c < utf8.RuneSelf && c != '\\':
			b = append(b, c)
			i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, 0, i, "string is not valid UTF-8"
			}
			b = append(b, data[i:i+size]...)
			i += size
		default: // backslash
			if i+1 >= len(data) {
				return nil, 0, i, "unterminated escape"
			}
			e := data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(data, i)
				if !ok {
					return nil, 0, i - 2, "invalid \\u escape"
				}
				i += 4
				if utf16.IsSurrogate(r) {
					lo, ok := rune(-1), false
					if r < 0xdc00 && i+6 <= len(data) && data[i] == '\\' && data[i+1] == 'u' {
						lo, ok = hex4(data, i+2)
					}
					if !ok || lo < 0xdc00 || lo > 0xdfff {
						return nil, 0, i - 6, "lone surrogate escape"
					}
					r = utf16.DecodeRune(r, lo)
					i += 6
				}
				b = utf8.AppendRune(b, r)
			default:
				return nil, 0, i - 2, "invalid escape character"
			}
		}
	}
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// scanNumber returns the end of the JSON number grammar starting at i, or -1.
func scanNumber(d []byte, i int) int {
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}

// checkNumber validates a complete number literal: grammar, no negative
// zero, finite float64 range.
func checkNumber(text []byte) error {
	if len(text) == 0 || scanNumber(text, 0) != len(text) {
		return errLossy("invalid number " + strconv.Quote(string(text)))
	}
	simple := len(text) <= 15
	for _, c := range text {
		if c == '.' || c == 'e' || c == 'E' {
			simple = false
			break
		}
	}
	if text[0] == '-' && decimalOf(string(text)).digits == "" {
		return errLossy("negative zero is not lossless")
	}
	if simple {
		return nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return errLossy("number " + strconv.Quote(string(text)) + " is outside the finite float64 range")
	}
	if f == 0 && text[0] == '-' {
		// -1e-400 underflows to -0: as a number it is negative zero.
		return errLossy("negative zero is not lossless")
	}
	return nil
}

// decimal is a number's exact value: (-1)^neg × digits × 10^exp, with
// digits free of leading and trailing zeros ("" for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// decimalOf converts a valid number literal to its exact decimal form.
func decimalOf(s string) decimal {
	var d decimal
	if s != "" && s[0] == '-' {
		d.neg = true
		s = s[1:]
	}
	mant, expPart, _ := strings.Cut(strings.ReplaceAll(s, "E", "e"), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp := -len(frac)
	if expPart != "" {
		e, err := strconv.Atoi(expPart)
		if err != nil { // absurd exponent: clamp (range was checked elsewhere)
			e = 1 << 30
			if expPart[0] == '-' {
				e = -e
			}
		}
		exp += e
	}
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return decimal{neg: d.neg}
	}
	d.digits, d.exp = trimmed, exp
	return d
}
