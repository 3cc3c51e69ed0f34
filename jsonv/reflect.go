package jsonv

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// FromGoOrigin is [FromGo] for a value whose owner will want it back: the
// result also remembers x as its [Value.Origin] when the conversion was
// exact (no invalid UTF-8 had to be replaced). The caller promises not to
// mutate x afterwards.
func FromGoOrigin(x any) (Value, error) {
	c := converter{onPath: map[uintptr]bool{}}
	v, err := c.convert(x)
	if err != nil || c.replaced {
		return v, err
	}
	return v.WithOrigin(x), nil
}

// WithOrigin returns v remembering x as its [Value.Origin], for a Value
// built by hand from parts already converted (sharing them instead of
// converting x again). The caller promises that x converts to exactly v
// and that nobody mutates x afterwards.
func (v Value) WithOrigin(x any) Value {
	if v.n == nil {
		return v
	}
	n := *v.n
	n.origin = x
	return Value{&n}
}

// Origin returns the Go value v was converted from by [FromGoOrigin], or
// nil. A Value parsed, built or converted any other way has none, so
// callers use it as a shortcut and decode when it is nil.
func (v Value) Origin() any {
	if v.n == nil {
		return nil
	}
	return v.n.origin
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// traitsCache holds each type's traits (reflect.Type → traits): the
// method-set checks cost more than converting a small value.
var traitsCache sync.Map

// traits are what the walk needs to know of a type before it walks it.
type traits struct {
	converter   bool // a [Converter]: it builds its own Value
	custom      bool // decides its own JSON form (json or text marshaler)
	appender    bool // a [JSONAppender]: it writes its own JSON
	ptrAppender bool // its pointer is a [JSONAppender] (and it is not)
}

func traitsOf(t reflect.Type) traits {
	if c, ok := traitsCache.Load(t); ok {
		return c.(traits)
	}
	c := traits{
		converter: t.Implements(converterType),
		custom: t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
			t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)),
		appender: t.Implements(appenderType),
	}
	c.ptrAppender = !c.appender && reflect.PointerTo(t).Implements(appenderType)
	traitsCache.Store(t, c)
	return c
}

// viaJSON converts what encoding/json can marshal and our walker does not
// model (custom marshalers, byte slices, embedded fields, non-string map
// keys): through encoding/json, then the strict parser.
func viaJSON(x any) (Value, error) {
	data, err := json.Marshal(x)
	if err != nil {
		return Value{}, &JSONError{Offset: -1, Msg: err.Error()}
	}
	return Parse(data)
}

// reflectValue converts typed Go data (structs, typed slices and maps,
// pointers) by walking it, with encoding/json's rules: field names and
// omitempty from `json` tags, "-" skipped, nil slices, maps and pointers
// as null, map keys sorted. Invalid UTF-8 in strings becomes U+FFFD per
// byte, as encoding/json does.
func (c *converter) reflectValue(rv reflect.Value) (Value, error) {
	if !rv.IsValid() {
		return NullValue(), nil
	}
	t := rv.Type()
	tr := traitsOf(t)
	if tr.converter && (t.Kind() != reflect.Pointer || !rv.IsNil()) {
		if v, ok := rv.Interface().(Converter).JSONValue(); ok {
			return v, nil
		}
	}
	if tr.custom {
		return viaJSON(rv.Interface())
	}
	switch rv.Kind() {
	case reflect.Bool:
		return BoolValue(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return IntValue(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Value{&node{kind: Number, s: strconv.FormatUint(rv.Uint(), 10)}}, nil
	case reflect.Float32:
		return floatBits(rv.Float(), 32)
	case reflect.Float64:
		return floatBits(rv.Float(), 64)
	case reflect.String:
		s := rv.String()
		if !utf8.ValidString(s) {
			c.replaced = true
			s = replaceInvalid(s)
		}
		return Value{&node{kind: String, s: s}}, nil
	case reflect.Interface:
		if rv.IsNil() {
			return NullValue(), nil
		}
		return c.convert(rv.Elem().Interface())
	case reflect.Pointer:
		if rv.IsNil() {
			return NullValue(), nil
		}
		p := rv.Pointer()
		if c.onPath[p] {
			return Value{}, errLossy("cyclic pointer")
		}
		c.onPath[p] = true
		defer delete(c.onPath, p)
		return c.reflectValue(rv.Elem())
	case reflect.Slice:
		if rv.IsNil() {
			return NullValue(), nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return viaJSON(rv.Interface()) // base64
		}
		if p := rv.Pointer(); rv.Len() > 0 {
			if c.onPath[p] {
				return Value{}, errLossy("cyclic array")
			}
			c.onPath[p] = true
			defer delete(c.onPath, p)
		}
		return c.reflectItems(rv)
	case reflect.Array:
		return c.reflectItems(rv)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || traitsOf(t.Key()).custom {
			return viaJSON(rv.Interface())
		}
		if rv.IsNil() {
			return NullValue(), nil
		}
		p := rv.Pointer()
		if c.onPath[p] {
			return Value{}, errLossy("cyclic object")
		}
		c.onPath[p] = true
		defer delete(c.onPath, p)
		keys := make([]string, 0, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			keys = append(keys, it.Key().String())
		}
		slices.Sort(keys)
		vals := make([]Value, len(keys))
		for i, k := range keys {
			if !utf8.ValidString(k) {
				return Value{}, errLossy("object key is not valid UTF-8")
			}
			v, err := c.reflectValue(rv.MapIndex(reflect.ValueOf(k).Convert(t.Key())))
			if err != nil {
				return Value{}, err
			}
			vals[i] = v
		}
		return newObject(keys, vals)
	case reflect.Struct:
		info := structFields(t)
		if info.fallback {
			return viaJSON(rv.Interface())
		}
		vals := make([]Value, 0, len(info.fields))
		var keys []string // nil while no field is omitted: info.keys then
		for i, f := range info.fields {
			fv := rv.Field(f.index)
			if f.omitted(fv) {
				if keys == nil {
					keys = append(make([]string, 0, len(info.fields)), info.keys[:i]...)
				}
				continue
			}
			v, err := c.reflectValue(fv)
			if err != nil {
				return Value{}, err
			}
			if keys != nil {
				keys = append(keys, f.name)
			}
			vals = append(vals, v)
		}
		if keys == nil {
			// Every field: the type's own keys (unique, immutable) are shared.
			return Value{&node{kind: Object, keys: info.keys, items: vals, index: info.index}}, nil
		}
		return newObject(keys, vals)
	}
	return Value{}, errLossy(fmt.Sprintf("a Go %s is not JSON", rv.Kind()))
}

func (c *converter) reflectItems(rv reflect.Value) (Value, error) {
	items := make([]Value, rv.Len())
	for i := range items {
		v, err := c.reflectValue(rv.Index(i))
		if err != nil {
			return Value{}, err
		}
		items[i] = v
	}
	return Value{&node{kind: Array, items: items}}, nil
}

// replaceInvalid replaces each invalid byte with U+FFFD, as encoding/json
// does (strings.ToValidUTF8 would fold a run into one).
func replaceInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type structField struct {
	index     int
	name      string
	member    string // the name quoted, and its colon: what starts the member
	omitEmpty bool
	omitZero  bool
}

// omitted reports whether field value fv is left out: omitempty of an
// empty value, omitzero of a zero one (by its IsZero method when it has
// one, as encoding/json decides).
func (f structField) omitted(fv reflect.Value) bool {
	if f.omitEmpty && isEmpty(fv) {
		return true
	}
	if !f.omitZero {
		return false
	}
	if z, ok := fv.Interface().(interface{ IsZero() bool }); ok {
		if fv.Kind() == reflect.Pointer && fv.IsNil() {
			return true
		}
		return z.IsZero()
	}
	return fv.IsZero()
}

type structInfo struct {
	fields   []structField
	keys     []string       // the fields' names, in order (unique)
	index    map[string]int // for IndexThreshold fields or more
	fallback bool           // a shape the walker leaves to encoding/json
}

var structCache sync.Map // reflect.Type → *structInfo

// structFields lists the exported fields of t as encoding/json encodes
// them. Embedded fields and the "string" option make the whole struct
// fall back to encoding/json.
func structFields(t reflect.Type) *structInfo {
	if info, ok := structCache.Load(t); ok {
		return info.(*structInfo)
	}
	info := &structInfo{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			info.fallback = true
			break
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" || !validTagName(name) {
			name = f.Name
		}
		sf := structField{index: i, name: name, member: string(AppendString(nil, name)) + ":"}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				sf.omitEmpty = true
			case "omitzero":
				sf.omitZero = true
			case "string":
				info.fallback = true
			}
		}
		info.fields = append(info.fields, sf)
	}
	if !info.fallback {
		seen := map[string]int{}
		for i, f := range info.fields {
			if _, dup := seen[f.name]; dup {
				info.fallback = true // encoding/json's dominance rules decide
			}
			seen[f.name] = i
			info.keys = append(info.keys, f.name)
		}
		if len(info.keys) >= IndexThreshold {
			info.index = seen
		}
	}
	v, _ := structCache.LoadOrStore(t, info)
	return v.(*structInfo)
}

// validTagName is encoding/json's rule for a usable tag name.
func validTagName(s string) bool {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
