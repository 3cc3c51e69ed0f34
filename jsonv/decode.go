package jsonv

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// decodeFast decodes an object into the struct target points to without
// encoding/json, when the decoding is plain: target is a non-nil pointer
// to a struct of string, bool and number fields (or nil pointers to
// them), with no unmarshaler anywhere, and every member of v names a
// field exactly (or no field, in any case) and holds a value of the
// field's kind, or null. It reports whether it did; when it did not,
// target is untouched and the caller asks encoding/json, whose rules
// (case-insensitive names, type errors, overflow) it then applies.
// Tool arguments are decoded this way several times a call (to check
// them, run the tool and draw its cards).
func decodeFast(v Value, target any) bool {
	rp := reflect.ValueOf(target)
	if rp.Kind() != reflect.Pointer || rp.IsNil() || rp.Elem().Kind() != reflect.Struct {
		return false
	}
	plan := decodePlanOf(rp.Elem().Type())
	n := v.n
	if plan == nil || n.kind != Object || len(n.keys) > maxFastMembers {
		return false
	}
	var fields [maxFastMembers]int // each member's field, -1 for none
	for i, k := range n.keys {
		f := plan.field(k)
		fields[i] = f
		if f < 0 {
			if plan.folds(k) {
				return false // encoding/json would take it case-insensitively
			}
			continue
		}
		if !plan.fields[f].fits(n.items[i].n) {
			return false
		}
	}
	rv := rp.Elem()
	for i := range n.keys {
		if f := fields[i]; f >= 0 {
			pf := &plan.fields[f]
			pf.set(rv.Field(pf.index), n.items[i].n)
		}
	}
	return true
}

// maxFastMembers bounds the objects decodeFast takes (tool arguments are
// a handful of members).
const maxFastMembers = 16

// decodePlan is what decodeFast knows of a struct type: its fields, each
// with the kind of value it holds.
type decodePlan struct {
	fields []planField
}

type planField struct {
	name  string
	index int
	kind  reflect.Kind // string, bool or a number kind
	ptr   bool         // a pointer to that kind
	elem  reflect.Type // the type of that kind
}

var decodePlans sync.Map // reflect.Type → *decodePlan (nil: not plain)

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodePlanOf is t's plan, nil when t is not a plain struct.
func decodePlanOf(t reflect.Type) *decodePlan {
	if p, ok := decodePlans.Load(t); ok {
		return p.(*decodePlan)
	}
	p := buildPlan(t)
	decodePlans.Store(t, p)
	return p
}

func buildPlan(t reflect.Type) *decodePlan {
	unmarshals := func(t reflect.Type) bool {
		pt := reflect.PointerTo(t)
		return t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler)
	}
	info := structFields(t)
	if info.fallback || unmarshals(t) {
		return nil
	}
	p := &decodePlan{}
	for _, f := range info.fields {
		ft := t.Field(f.index).Type
		pf := planField{name: f.name, index: f.index}
		if ft.Kind() == reflect.Pointer {
			pf.ptr = true
			ft = ft.Elem()
		}
		pf.elem = ft
		if unmarshals(ft) {
			return nil
		}
		switch pf.kind = ft.Kind(); pf.kind {
		case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil
		}
		p.fields = append(p.fields, pf)
	}
	return p
}

// field is the field named exactly k, or -1.
func (p *decodePlan) field(k string) int {
	for i := range p.fields {
		if p.fields[i].name == k {
			return i
		}
	}
	return -1
}

// folds reports whether encoding/json could match k to a field in another
// case (any key that is not ASCII is assumed to).
func (p *decodePlan) folds(k string) bool {
	for i := range len(k) {
		if k[i] >= 0x80 {
			return true
		}
	}
	for i := range p.fields {
		if strings.EqualFold(p.fields[i].name, k) {
			return true
		}
	}
	return false
}

// fits reports whether the field takes n as encoding/json would, without
// an error: null, or a value of the field's kind that fits it.
func (pf *planField) fits(n *node) bool {
	switch n.kind {
	case Null:
		return true
	case String:
		return pf.kind == reflect.String
	case Bool:
		return pf.kind == reflect.Bool
	case Number:
		_, _, _, ok := pf.number(n.s)
		return ok
	}
	return false
}

// set stores n, which fits, in the field's value fv.
func (pf *planField) set(fv reflect.Value, n *node) {
	if n.kind == Null {
		if pf.ptr {
			fv.SetZero() // null leaves other kinds as they are
		}
		return
	}
	if pf.ptr {
		if fv.IsNil() {
			fv.Set(reflect.New(pf.elem))
		}
		fv = fv.Elem()
	}
	switch n.kind {
	case String:
		fv.SetString(n.s)
	case Bool:
		fv.SetBool(n.b)
	case Number:
		f, i, u, _ := pf.number(n.s)
		switch fv.Kind() {
		case reflect.Float32, reflect.Float64:
			fv.SetFloat(f)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			fv.SetInt(i)
		default:
			fv.SetUint(u)
		}
	}
}

// number parses s as encoding/json does for the field's kind (one of the
// three results, by the kind), reporting false where encoding/json fails:
// a fraction or exponent for an integer, a value out of the kind's range,
// a number for a string or bool field.
func (pf *planField) number(s string) (f float64, i int64, u uint64, ok bool) {
	var err error
	switch pf.kind {
	case reflect.Float32, reflect.Float64:
		f, err = strconv.ParseFloat(s, pf.elem.Bits())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err = strconv.ParseInt(s, 10, pf.elem.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u, err = strconv.ParseUint(s, 10, pf.elem.Bits())
	default:
		return 0, 0, 0, false
	}
	return f, i, u, err == nil
}
