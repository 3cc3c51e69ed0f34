package registry

import (
	"reflect"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

var deferredType = reflect.TypeFor[jsonv.Deferred]()

// spec is specOf, remembering on the spec the Go type it was derived
// from when that type's values convert as [jsonv.Deferred].
func (d *deriver) spec(t reflect.Type, path string) (*Spec, error) {
	s, err := d.specOf(t, path)
	if err == nil && t.Kind() != reflect.Pointer && t.Implements(deferredType) {
		s.goType = t
	}
	return s, err
}

// markDeferred copies the Go types remembered on a derived spec onto the
// nodes compiled from it, walking both trees together: a node that holds
// a type accepts an unbuilt deferred value of exactly that type without
// building it ([jsonv.Deferred]'s contract: such a value satisfies the
// schema derived from its type). A node is marked only where the compiled
// tree has the spec's shape.
func markDeferred(s *Spec, n *snode) {
	if s == nil || n == nil {
		return
	}
	if s.goType != nil && (s.Type == "array" && n.typ == tArray || s.Type == "object" && n.typ == tObject) {
		n.goType = s.goType
	}
	if len(s.OneOf) == len(n.oneOf) {
		for i, b := range s.OneOf {
			markDeferred(b, n.oneOf[i])
		}
	}
	markDeferred(s.Items, n.items)
	for _, p := range s.Properties {
		if pn, ok := n.prop(p.Name); ok {
			markDeferred(p.Spec, pn)
		}
	}
}
