package jsonv

import (
	"iter"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Kind is the JSON type of a [Value].
type Kind uint8

// The kinds of JSON value. Invalid is the kind of the zero Value, which stands
// for "absent" (JavaScript's undefined): it is never part of a valid tree.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "boolean", "number", "string", "array", "object"}

// String returns the JSON Schema spelling of the kind ("boolean", "object", …).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is an immutable, lossless JSON value.
//
// A Value is a small handle; copying it is cheap and every copy sees the same
// tree, which nobody can change: there are no mutating methods, and accessors
// that expose containers return fresh slices. A Value is therefore safe to
// share between goroutines, policies, tools and observers without copying.
//
// Lossless means: no duplicate object keys, no negative zero, only finite
// float64-range numbers, valid UTF-8 strings. Numbers keep their source text,
// so integers beyond 2^53 survive unchanged. Object members keep their source
// order. The zero Value is "absent" (Kind Invalid).
type Value struct{ n *node }

type node struct {
	kind  Kind
	b     bool
	s     string  // string contents, or the number's source text
	items []Value // array items, or object member values
	keys  []string
	index map[string]int // object key index, built for larger objects
	// origin is the Go value this node was converted from (FromGoOrigin);
	// no accessor, encoder or comparison looks at it.
	origin any
}

// IndexThreshold is the member count from which objects get a key map;
// below it a linear scan is faster than hashing.
const IndexThreshold = 12

var (
	nullNode  = &node{kind: Null}
	trueNode  = &node{kind: Bool, b: true}
	falseNode = &node{kind: Bool}
)

// NullValue returns the JSON null.
func NullValue() Value { return Value{nullNode} }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value {
	if b {
		return Value{trueNode}
	}
	return Value{falseNode}
}

// IntValue returns a JSON number holding i exactly.
func IntValue(i int64) Value {
	return Value{&node{kind: Number, s: strconv.FormatInt(i, 10)}}
}

// StringValue returns a JSON string. It reports an error when s is not valid
// UTF-8, since such a string cannot be encoded losslessly.
func StringValue(s string) (Value, error) {
	if !utf8.ValidString(s) {
		return Value{}, errLossy("string is not valid UTF-8")
	}
	return Value{&node{kind: String, s: s}}, nil
}

// MustString is StringValue for strings known to be valid UTF-8 (literals);
// it panics otherwise.
func MustString(s string) Value {
	v, err := StringValue(s)
	if err != nil {
		panic(err)
	}
	return v
}

// NumberValue returns a JSON number from its literal text (for example
// "12345678901234567890" or "1.5e3"), which must be lossless.
func NumberValue(text string) (Value, error) {
	if err := checkNumber([]byte(text)); err != nil {
		return Value{}, err
	}
	return Value{&node{kind: Number, s: text}}, nil
}

// ArrayValue returns a JSON array of items. Every item must be valid.
func ArrayValue(items ...Value) (Value, error) {
	for _, it := range items {
		if !it.IsValid() {
			return Value{}, errLossy("array item is absent")
		}
	}
	return Value{&node{kind: Array, items: slices.Clone(items)}}, nil
}

// Member is one object member, used to build objects.
type Member struct {
	Key   string
	Value Value
}

// ObjectValue returns a JSON object with the members in order. Keys must be
// unique valid UTF-8 and values valid.
func ObjectValue(members ...Member) (Value, error) {
	keys := make([]string, len(members))
	vals := make([]Value, len(members))
	for i, m := range members {
		if !utf8.ValidString(m.Key) {
			return Value{}, errLossy("object key is not valid UTF-8")
		}
		if !m.Value.IsValid() {
			return Value{}, errLossy("object member " + strconv.Quote(m.Key) + " is absent")
		}
		keys[i], vals[i] = m.Key, m.Value
	}
	return newObject(keys, vals)
}

// newObject takes ownership of keys and vals and rejects duplicate keys.
func newObject(keys []string, vals []Value) (Value, error) {
	n := &node{kind: Object, keys: keys, items: vals}
	if err := indexObject(n); err != nil {
		return Value{}, err
	}
	return Value{n}, nil
}

// indexObject checks that object n's keys are unique and, for a larger
// object, builds its key index.
func indexObject(n *node) error {
	keys := n.keys
	if len(keys) >= IndexThreshold {
		n.index = make(map[string]int, len(keys))
		for i, k := range keys {
			if _, dup := n.index[k]; dup {
				return errLossy("duplicate object key " + strconv.Quote(k))
			}
			n.index[k] = i
		}
		return nil
	}
	for i := 1; i < len(keys); i++ {
		if slices.Contains(keys[:i], keys[i]) {
			return errLossy("duplicate object key " + strconv.Quote(keys[i]))
		}
	}
	return nil
}

// IsValid reports whether v holds a value (is not the zero, absent Value).
func (v Value) IsValid() bool { return v.n != nil }

// Kind returns the value's JSON type; Invalid for the zero Value.
func (v Value) Kind() Kind {
	if v.n == nil {
		return Invalid
	}
	return v.n.kind
}

// Bool returns the boolean; false for other kinds.
func (v Value) Bool() bool { return v.n != nil && v.n.kind == Bool && v.n.b }

// Str returns the string contents; "" for other kinds.
func (v Value) Str() string {
	if v.n == nil || v.n.kind != String {
		return ""
	}
	return v.n.s
}

// NumberText returns the number's literal source text; "" for other kinds.
func (v Value) NumberText() string {
	if v.n == nil || v.n.kind != Number {
		return ""
	}
	return v.n.s
}

// Float returns the number as the nearest float64; 0 for other kinds.
func (v Value) Float() float64 {
	if v.n == nil || v.n.kind != Number {
		return 0
	}
	f, _ := strconv.ParseFloat(v.n.s, 64)
	return f
}

// Int returns the number as an int64 and reports whether it is an integer
// that fits exactly.
func (v Value) Int() (int64, bool) {
	if v.n == nil || v.n.kind != Number {
		return 0, false
	}
	if i, err := strconv.ParseInt(v.n.s, 10, 64); err == nil {
		return i, true
	}
	d := decimalOf(v.n.s)
	if d.exp < 0 || len(d.digits)+d.exp > 19 {
		return 0, false
	}
	text := d.digits
	for range d.exp {
		text += "0"
	}
	if d.neg {
		text = "-" + text
	}
	i, err := strconv.ParseInt(text, 10, 64)
	return i, err == nil
}

// IsInteger reports whether v is a number with no fractional part (1.0 and
// 1e3 count, as in JSON Schema), however large.
func (v Value) IsInteger() bool {
	return v.n != nil && v.n.kind == Number && decimalOf(v.n.s).exp >= 0
}

// Len returns the number of array items or object members; 0 otherwise.
func (v Value) Len() int {
	if v.n == nil || (v.n.kind != Array && v.n.kind != Object) {
		return 0
	}
	return len(v.n.items)
}

// Index returns the i-th array item or object member value.
// It panics if i is out of range, like a slice index.
func (v Value) Index(i int) Value { return v.n.items[i] }

// Key returns the i-th object member key. It panics if i is out of range.
func (v Value) Key(i int) string { return v.n.keys[i] }

// Items returns a fresh slice of the array's items (nil for other kinds).
func (v Value) Items() []Value {
	if v.Kind() != Array {
		return nil
	}
	return slices.Clone(v.n.items)
}

// All iterates over array items (index, item) in order.
func (v Value) All() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		if v.Kind() != Array {
			return
		}
		for i, it := range v.n.items {
			if !yield(i, it) {
				return
			}
		}
	}
}

// Members iterates over object members in order.
func (v Value) Members() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		if v.Kind() != Object {
			return
		}
		n := v.n
		for i, k := range n.keys {
			if !yield(k, n.items[i]) {
				return
			}
		}
	}
}

// Get returns the object member named key, and whether it exists.
func (v Value) Get(key string) (Value, bool) {
	if v.n == nil || v.n.kind != Object {
		return Value{}, false
	}
	n := v.n
	if n.index != nil {
		i, ok := n.index[key]
		if !ok {
			return Value{}, false
		}
		return n.items[i], true
	}
	for i, k := range n.keys {
		if k == key {
			return n.items[i], true
		}
	}
	return Value{}, false
}

// Has reports whether the object has a member named key.
func (v Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// Equal reports whether v and w are the same JSON value: numbers compare by
// numeric value (1 equals 1.0), objects by members regardless of order.
func (v Value) Equal(w Value) bool {
	type pair struct{ a, b Value }
	stack := []pair{{v, w}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.a.n == p.b.n {
			continue
		}
		if p.a.Kind() != p.b.Kind() {
			return false
		}
		a, b := p.a.n, p.b.n
		switch a.kind {
		case Bool:
			if a.b != b.b {
				return false
			}
		case String:
			if a.s != b.s {
				return false
			}
		case Number:
			if a.s != b.s && decimalOf(a.s) != decimalOf(b.s) {
				return false
			}
		case Array:
			if len(a.items) != len(b.items) {
				return false
			}
			for i := range a.items {
				stack = append(stack, pair{a.items[i], b.items[i]})
			}
		case Object:
			if len(a.items) != len(b.items) {
				return false
			}
			for i, k := range a.keys {
				bv, ok := p.b.Get(k)
				if !ok {
					return false
				}
				stack = append(stack, pair{a.items[i], bv})
			}
		}
	}
	return true
}

// MustArray is ArrayValue for items known to be valid; it panics otherwise.
func MustArray(items ...Value) Value {
	v, err := ArrayValue(items...)
	if err != nil {
		panic(err)
	}
	return v
}

// MustObject is ObjectValue for members known to be valid; it panics otherwise.
func MustObject(members ...Member) Value {
	v, err := ObjectValue(members...)
	if err != nil {
		panic(err)
	}
	return v
}

// Same reports whether v and w are the same handle (not merely equal): a
// cheap identity check for "is this the value I produced".
func (v Value) Same(w Value) bool { return v.n == w.n }
