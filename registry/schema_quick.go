package registry

import (
	"slices"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// quickDepth bounds the quick check's recursion: a value nested deeper is
// left to the iterative walk.
const quickDepth = 64

// valid reports whether v satisfies n, without a frame or a message: the
// common case of every tool call (a read's value is a hundred objects)
// costs a tight recursive pass instead of the walk that can say why. It
// may answer false for a valid value (nesting deeper than quickDepth);
// it never answers true for an invalid one. Validate then walks again,
// for the messages, only when the answer is false.
func (n *snode) valid(v jsonv.Value, depth int) bool {
	if !v.IsValid() || depth > quickDepth {
		return false
	}
	switch n.typ {
	case tAny:
		return true
	case tOneOf:
		matches := 0
		for _, b := range n.oneOf {
			if b.valid(v, depth+1) {
				matches++
			}
		}
		return matches == 1
	case tObject:
		if v.Kind() != jsonv.Object {
			return false
		}
		for _, r := range n.required {
			if !v.Has(r) {
				return false
			}
		}
		if n.closed {
			for k := range v.Members() {
				if _, declared := n.prop(k); !declared {
					return false
				}
			}
		}
		for _, p := range n.props {
			if pv, ok := v.Get(p.name); ok && !p.node.valid(pv, depth+1) {
				return false
			}
		}
		return true
	case tArray:
		if v.Kind() != jsonv.Array {
			return false
		}
		if n.items != nil {
			for i := range v.Len() {
				if !n.items.valid(v.Index(i), depth+1) {
					return false
				}
			}
		}
		return true
	}
	return scalarProblem(n, v) == ""
}

// scalarProblem is what keeps v from satisfying the scalar schema n, as
// the end of a message (" must be a string"), or "" when nothing does.
func scalarProblem(n *snode, v jsonv.Value) string {
	switch n.typ {
	case tString:
		if v.Kind() != jsonv.String {
			return " must be a string"
		}
	case tNumber:
		if v.Kind() != jsonv.Number {
			return " must be a number"
		}
	case tInteger:
		if !v.IsInteger() {
			return " must be an integer"
		}
	case tBoolean:
		if v.Kind() != jsonv.Bool {
			return " must be a boolean"
		}
	case tNull:
		if v.Kind() != jsonv.Null {
			return " must be null"
		}
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, v.Equal) {
		return " must be one of " + n.enumText
	}
	if n.constV.IsValid() && !v.Equal(n.constV) {
		return " must be " + n.constV.String()
	}
	return ""
}
