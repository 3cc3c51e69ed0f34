package jsonv

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendJSON appends the canonical encoding of v to dst: no insignificant
// whitespace, members in order, numbers as their source text, strings with
// only the escapes JSON requires (as JavaScript's JSON.stringify). Parsing
// the result gives a Value equal to v. Absent values encode as nothing.
func (v Value) AppendJSON(dst []byte) []byte {
	type item struct {
		n     *node
		i     int // next child to write; -1 before the opening bracket
		first bool
	}
	if v.n == nil {
		return dst
	}
	stack := []item{{n: v.n, i: -1}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		n := top.n
		switch n.kind {
		case Null:
			dst = append(dst, "null"...)
		case Bool:
			dst = strconv.AppendBool(dst, n.b)
		case Number:
			dst = append(dst, n.s...)
		case String:
			dst = appendQuoted(dst, n.s)
		case Array, Object:
			if top.i < 0 {
				if n.kind == Array {
					dst = append(dst, '[')
				} else {
					dst = append(dst, '{')
				}
				top.i = 0
			}
			if top.i < len(n.items) {
				if top.i > 0 {
					dst = append(dst, ',')
				}
				if n.kind == Object {
					dst = appendQuoted(dst, n.keys[top.i])
					dst = append(dst, ':')
				}
				child := n.items[top.i].n
				top.i++
				stack = append(stack, item{n: child, i: -1})
				continue
			}
			if n.kind == Array {
				dst = append(dst, ']')
			} else {
				dst = append(dst, '}')
			}
		}
		stack = stack[:len(stack)-1]
	}
	return dst
}

// Bytes returns the canonical encoding of v (a fresh slice).
func (v Value) Bytes() []byte { return v.AppendJSON(nil) }

// String returns the canonical encoding of v, for logs and messages.
func (v Value) String() string {
	if v.n == nil {
		return "<absent>"
	}
	return string(v.AppendJSON(nil))
}

// IsZero reports whether v is absent, so that `json:",omitzero"` omits it.
func (v Value) IsZero() bool { return v.n == nil }

// MarshalJSON implements json.Marshaler. An absent Value is an error: use
// the omitzero option on fields that may be absent.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.n == nil {
		return nil, errors.New("jsonv: cannot marshal an absent Value")
	}
	return v.AppendJSON(nil), nil
}

// UnmarshalJSON implements json.Unmarshaler with the strict lossless parser.
func (v *Value) UnmarshalJSON(data []byte) error {
	parsed, err := Parse(data)
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}

// Decode decodes v into the Go value pointed to by target with
// encoding/json's rules: a plain struct (tool arguments) directly
// (decodeFast), anything else through encoding/json.
func (v Value) Decode(target any) error {
	if v.n == nil {
		return errors.New("jsonv: cannot decode an absent Value")
	}
	if decodeFast(v, target) {
		return nil
	}
	return json.Unmarshal(v.AppendJSON(nil), target)
}

func appendQuoted(dst []byte, s string) []byte { return AppendString(dst, s) }

// FromGo snapshots Go data as a lossless Value. It accepts nil, bool,
// strings, every integer and float kind, json.Number, json.RawMessage, Value,
// []any, map[string]any, and typed data (structs, typed slices and maps,
// pointers), which it walks with encoding/json's rules (see reflectValue;
// the shapes the walker does not model go through encoding/json and then
// the strict parser). It rejects NaN, ±Inf, negative zero, cycles, invalid
// UTF-8 in untyped data, and values encoding/json rejects; invalid UTF-8
// in typed data becomes U+FFFD, as encoding/json makes it. The result
// shares no memory with the input.
func FromGo(x any) (Value, error) {
	c := converter{onPath: map[uintptr]bool{}}
	return c.convert(x)
}

type converter struct {
	onPath   map[uintptr]bool // containers on the current path, for cycle detection
	replaced bool             // invalid UTF-8 in typed data became U+FFFD
}

func (c *converter) convert(x any) (Value, error) {
	switch t := x.(type) {
	case nil:
		return NullValue(), nil
	case Value:
		if !t.IsValid() {
			return Value{}, errLossy("absent value")
		}
		return t, nil
	case bool:
		return BoolValue(t), nil
	case string:
		return StringValue(t)
	case int:
		return IntValue(int64(t)), nil
	case int64:
		return IntValue(t), nil
	case int32:
		return IntValue(int64(t)), nil
	case uint64:
		return Value{&node{kind: Number, s: strconv.FormatUint(t, 10)}}, nil
	case float64:
		return floatValue(t)
	case float32:
		return floatBits(float64(t), 32)
	case json.Number:
		return NumberValue(string(t))
	case json.RawMessage:
		return Parse(t)
	case []any:
		p := reflect.ValueOf(t).Pointer()
		if p != 0 && len(t) > 0 {
			if c.onPath[p] {
				return Value{}, errLossy("cyclic array")
			}
			c.onPath[p] = true
			defer delete(c.onPath, p)
		}
		items := make([]Value, len(t))
		for i, e := range t {
			v, err := c.convert(e)
			if err != nil {
				return Value{}, err
			}
			items[i] = v
		}
		return Value{&node{kind: Array, items: items}}, nil
	case map[string]any:
		p := reflect.ValueOf(t).Pointer()
		if c.onPath[p] {
			return Value{}, errLossy("cyclic object")
		}
		c.onPath[p] = true
		defer delete(c.onPath, p)
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys) // maps have no order: make it deterministic
		vals := make([]Value, len(keys))
		for i, k := range keys {
			if !utf8.ValidString(k) {
				return Value{}, errLossy("object key is not valid UTF-8")
			}
			v, err := c.convert(t[k])
			if err != nil {
				return Value{}, err
			}
			vals[i] = v
		}
		return newObject(keys, vals)
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return IntValue(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Value{&node{kind: Number, s: strconv.FormatUint(rv.Uint(), 10)}}, nil
	case reflect.Float32, reflect.Float64:
		return floatValue(rv.Float())
	case reflect.Func, reflect.Chan, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return Value{}, errLossy(fmt.Sprintf("a Go %s is not JSON", rv.Kind()))
	}
	return c.reflectValue(rv)
}

func floatValue(f float64) (Value, error) { return floatBits(f, 64) }

// floatBits is the shortest text that round-trips f at its precision,
// spelled as encoding/json and JavaScript do (1e-7, 1e+21).
func floatBits(f float64, bits int) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, errLossy("NaN and infinities are not JSON numbers")
	}
	if f == 0 && math.Signbit(f) {
		return Value{}, errLossy("negative zero is not lossless")
	}
	abs := math.Abs(f)
	format := byte('f')
	if bits == 32 {
		abs = float64(float32(abs))
	}
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, bits)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return Value{&node{kind: Number, s: string(b)}}, nil
}
