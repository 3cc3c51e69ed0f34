package jsonv

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// JSONAppender is implemented by types that write their own JSON in one
// pass (the cards). [AppendGo] prefers it to json.Marshaler.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

var (
	appenderType = reflect.TypeFor[JSONAppender]()
	valueType    = reflect.TypeFor[Value]()
)

// maxDepth bounds nesting, as encoding/json's cycle check does.
const maxDepth = 1000

// AppendGo appends the JSON encoding of Go data to dst in one pass, with
// encoding/json's rules (field names and omitempty from `json` tags, nil
// slices, maps and pointers as null, map keys sorted, invalid UTF-8 as
// U+FFFD) except that <, > and & are not escaped. A [Value] is written as
// it is, without re-validation; a [JSONAppender] writes itself; other
// json.Marshalers, byte slices and the shapes the walker does not model go
// through encoding/json. NaN, infinities and cycles are errors.
func AppendGo(dst []byte, x any) ([]byte, error) {
	if x == nil {
		return append(dst, "null"...), nil
	}
	return appendReflect(dst, reflect.ValueOf(x), 0)
}

// AppendTagged appends the struct *v as a JSON object whose first members
// are the given key/value tag pairs: the encoding of a tagged union member
// (a card with its "card" tag).
func AppendTagged[T any](dst []byte, v *T, tags ...string) ([]byte, error) {
	rv := reflect.ValueOf(v).Elem()
	info := structFields(rv.Type())
	if info.fallback {
		return nil, fmt.Errorf("jsonv: %s cannot be tagged", rv.Type())
	}
	dst = append(dst, '{')
	first := true
	for i := 0; i+1 < len(tags); i += 2 {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = AppendString(dst, tags[i])
		dst = append(dst, ':')
		dst = AppendString(dst, tags[i+1])
	}
	return appendFields(dst, rv, info, first, 1)
}

// appendReflect writes rv. It recurses once per level of the value, so
// its frame is kept small (some 640 bytes of it grew the stack of every
// goroutine that wrote a card): what is rare, or needs locals of its own,
// is in functions of its own.
func appendReflect(dst []byte, rv reflect.Value, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errors.New("jsonv: value nested too deeply (a cycle?)")
	}
	if !rv.IsValid() {
		return append(dst, "null"...), nil
	}
	t := rv.Type()
	if t == valueType || t.Kind() == reflect.Pointer && rv.IsNil() {
		return appendValueOrNull(dst, rv)
	}
	if tr := traitsOf(t); tr.appender || tr.ptrAppender && rv.CanAddr() || tr.custom { // the method-set checks, once per type
		return appendCustom(dst, rv, tr)
	}
	switch rv.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(dst, rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(dst, rv.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return appendFloat(dst, rv)
	case reflect.String:
		return AppendString(dst, rv.String()), nil
	case reflect.Interface, reflect.Pointer:
		if rv.IsNil() {
			return append(dst, "null"...), nil
		}
		return appendReflect(dst, rv.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && (rv.IsNil() || t.Elem().Kind() == reflect.Uint8) {
			return appendNilOrBytes(dst, rv)
		}
		dst = append(dst, '[')
		for i := range rv.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendReflect(dst, rv.Index(i), depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case reflect.Map:
		return appendMap(dst, rv, depth)
	case reflect.Struct:
		info := structFields(t)
		if info.fallback {
			return appendMarshaled(dst, rv)
		}
		return appendFields(append(dst, '{'), rv, info, true, depth)
	}
	return nil, errLossy(fmt.Sprintf("a Go %s is not JSON", rv.Kind()))
}

// appendValueOrNull writes a [Value] as it is, and a nil pointer as null.
//
//go:noinline
func appendValueOrNull(dst []byte, rv reflect.Value) ([]byte, error) {
	if rv.Kind() == reflect.Pointer {
		return append(dst, "null"...), nil
	}
	v := rv.Interface().(Value)
	if !v.IsValid() {
		return nil, errLossy("absent value")
	}
	return v.AppendJSON(dst), nil
}

// appendCustom writes a value whose type writes itself: a [JSONAppender]
// (by value or by pointer), else a json.Marshaler through encoding/json.
//
//go:noinline
func appendCustom(dst []byte, rv reflect.Value, tr traits) ([]byte, error) {
	switch {
	case tr.appender:
		return rv.Interface().(JSONAppender).AppendJSON(dst)
	case tr.ptrAppender && rv.CanAddr():
		return rv.Addr().Interface().(JSONAppender).AppendJSON(dst)
	}
	return appendMarshaled(dst, rv)
}

// appendMarshaled writes rv through encoding/json.
//
//go:noinline
func appendMarshaled(dst []byte, rv reflect.Value) ([]byte, error) {
	data, err := json.Marshal(rv.Interface())
	if err != nil {
		return nil, err
	}
	return append(dst, data...), nil
}

// appendFloat writes a float as encoding/json does; NaN and infinities
// are errors.
//
//go:noinline
func appendFloat(dst []byte, rv reflect.Value) ([]byte, error) {
	bits := 64
	if rv.Kind() == reflect.Float32 {
		bits = 32
	}
	f := rv.Float()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errLossy("NaN and infinities are not JSON numbers")
	}
	v, err := floatBits(f, bits)
	if err != nil { // negative zero: encoding/json writes it
		return append(dst, "-0"...), nil
	}
	return append(dst, v.n.s...), nil
}

// appendNilOrBytes writes a nil slice as null and a byte slice in base64,
// as encoding/json does.
//
//go:noinline
func appendNilOrBytes(dst []byte, rv reflect.Value) ([]byte, error) {
	if rv.IsNil() {
		return append(dst, "null"...), nil
	}
	return appendMarshaled(dst, rv)
}

// appendMap writes a map with string keys, its keys sorted; other maps go
// through encoding/json.
//
//go:noinline
func appendMap(dst []byte, rv reflect.Value, depth int) ([]byte, error) {
	t := rv.Type()
	if t.Key().Kind() != reflect.String || traitsOf(t.Key()).custom {
		return appendMarshaled(dst, rv)
	}
	if rv.IsNil() {
		return append(dst, "null"...), nil
	}
	keys := make([]string, 0, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		keys = append(keys, it.Key().String())
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(AppendString(dst, k), ':')
		var err error
		if dst, err = appendReflect(dst, rv.MapIndex(reflect.ValueOf(k).Convert(t.Key())), depth+1); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendFields appends the members of struct rv and the closing brace;
// first says whether no member precedes them.
func appendFields(dst []byte, rv reflect.Value, info *structInfo, first bool, depth int) ([]byte, error) {
	for _, f := range info.fields {
		fv := rv.Field(f.index)
		if f.omitted(fv) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.member...)
		var err error
		if dst, err = appendReflect(dst, fv, depth+1); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
