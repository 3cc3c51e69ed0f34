package jsonv

import (
	"reflect"
	"sync"
	"sync/atomic"
)

// Deferred is a [Converter] whose Value can wait until something reads its
// parts. [FromGoOrigin] (whose caller promises not to mutate the input)
// gives such a value a node that holds the Go value: the node encodes
// itself with the value's AppendJSON, reports its Kind, and builds its
// parts (JSONValue, once, safely from any goroutine) only when an accessor
// reads them. A tool's output of a thousand parts that is encoded and
// never inspected (a read's lines) then costs no tree at all.
//
// The contract, beyond [Converter]'s:
//   - DeferKind reports the Kind of the Value JSONValue builds, which must
//     be Array or Object, or false when the value cannot wait (JSONValue
//     would answer false, or the value is nil);
//   - when DeferKind answers true, AppendJSON writes exactly the encoding
//     of the Value JSONValue builds, and never fails;
//   - when DeferKind answers true, that Value satisfies the schema a
//     registry derives from the value's Go type (so a validator may accept
//     the unbuilt node by its type; see [Value.DeferredOf]).
type Deferred interface {
	Converter
	JSONAppender
	DeferKind() (Kind, bool)
}

var deferredType = reflect.TypeFor[Deferred]()

// deferredNode is what a deferred node holds in its origin: the Go value,
// and the node it builds on first use.
type deferredNode struct {
	src   Deferred
	once  sync.Once
	built atomic.Pointer[node] // nil until something reads the parts
}

// deferredOf returns the deferred state of n, or nil for any other node.
func (n *node) deferredOf() *deferredNode {
	d, _ := n.origin.(*deferredNode)
	return d
}

// newDeferred returns the deferred node of d, or false when d cannot wait.
func newDeferred(d Deferred) (Value, bool) {
	k, ok := d.DeferKind()
	if !ok || (k != Array && k != Object) {
		return Value{}, false
	}
	return Value{&node{kind: k, origin: &deferredNode{src: d}}}, true
}

// full returns the node whose parts n's accessors read: n itself, or, for
// a deferred node, the node its Go value builds (built once).
func (n *node) full() *node {
	d := n.deferredOf()
	if d == nil {
		return n
	}
	d.once.Do(func() {
		v, ok := d.src.JSONValue()
		if !ok || v.Kind() != n.kind {
			// A broken promise: the parts are parsed from what the node
			// encodes to, so that reading agrees with writing.
			v, _ = Parse(n.appendDeferred(nil, d))
		}
		if v.n == nil || v.n.kind != n.kind {
			v = Value{&node{kind: n.kind}} // empty, of the kind reported
		}
		d.built.Store(v.n.full())
	})
	return d.built.Load()
}

// appendDeferred writes the deferred node n of d.
func (n *node) appendDeferred(dst []byte, d *deferredNode) []byte {
	out, err := d.src.AppendJSON(dst)
	if err != nil {
		if n.kind == Array {
			return append(dst, "[]"...)
		}
		return append(dst, "{}"...)
	}
	return out
}

// DeferredOf returns the Go value a deferred node holds (see [Deferred]),
// built or not; false for every other Value.
func (v Value) DeferredOf() (any, bool) {
	if v.n == nil || v.n.deferredOf() == nil {
		return nil, false
	}
	return v.n.deferredOf().src, true
}

// Waiting reports whether v is a deferred node whose parts have not been
// built (nothing has read them yet): for tests and diagnostics that check
// a hot path never builds what it only writes.
func (v Value) Waiting() bool {
	return v.n != nil && v.n.deferredOf() != nil && v.n.deferredOf().built.Load() == nil
}
