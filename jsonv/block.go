package jsonv

import (
	"reflect"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Converter is implemented by Go types that build their own Value in bulk,
// such as a file's lines: [FromGo] and [FromGoOrigin] prefer it to the
// reflective walk, which costs several allocations and reflective calls
// per part. JSONValue must build exactly the Value the walk would build
// from the same data (the same members, in the same order); it reports
// false when it cannot, and the walk is used instead (for invalid UTF-8,
// which the walk replaces).
type Converter interface {
	JSONValue() (Value, bool)
}

var converterType = reflect.TypeFor[Converter]()

// Block allocates the parts of a Value together: a Converter builds a
// value of thousands of parts with a few allocations. The values it
// returns are ordinary, immutable Values; they keep the block's memory
// alive. A Block is not safe for concurrent use.
type Block struct {
	nodes []node
	// digits holds the numbers' text; each number's string points into
	// it. Bytes are only ever appended, never rewritten, so those strings
	// never change (a full buffer is replaced, not reused).
	digits []byte
}

// NewBlock returns a block sized for n parts (it grows past n if needed).
func NewBlock(n int) *Block { return &Block{nodes: make([]node, 0, max(n, 1))} }

func (b *Block) alloc() *node {
	if len(b.nodes) == cap(b.nodes) {
		b.nodes = make([]node, 0, cap(b.nodes))
	}
	b.nodes = b.nodes[:len(b.nodes)+1]
	return &b.nodes[len(b.nodes)-1]
}

// Int returns the JSON number i.
func (b *Block) Int(i int64) Value {
	const maxDigits = 20 // "-9223372036854775808"
	if cap(b.digits)-len(b.digits) < maxDigits {
		// About four digits a part (a file's line numbers); a full buffer
		// is replaced by one twice its size.
		b.digits = make([]byte, 0, max(2*cap(b.digits), 4*cap(b.nodes), 64))
	}
	start := len(b.digits)
	b.digits = strconv.AppendInt(b.digits, i, 10)
	n := b.alloc()
	n.kind, n.s = Number, unsafe.String(&b.digits[start], len(b.digits)-start)
	return Value{n}
}

// String returns the JSON string s, or false when s is not valid UTF-8.
func (b *Block) String(s string) (Value, bool) {
	if !utf8.ValidString(s) {
		return Value{}, false
	}
	n := b.alloc()
	n.kind, n.s = String, s
	return Value{n}, true
}

// Array returns an array of items. It keeps items: the caller must not
// change the slice afterwards.
func (b *Block) Array(items []Value) Value {
	n := b.alloc()
	n.kind, n.items = Array, items
	return Value{n}
}

// Object returns an object of keys and vals (same length, keys unique).
// It keeps both slices: one key slice may be shared by many objects, and
// neither may be changed afterwards.
func (b *Block) Object(keys []string, vals []Value) (Value, error) {
	if len(keys) != len(vals) {
		return Value{}, errLossy("object keys and values differ in number")
	}
	n := b.alloc()
	n.kind, n.keys, n.items = Object, keys, vals
	if err := indexObject(n); err != nil {
		return Value{}, err
	}
	return Value{n}, nil
}
