package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// TypedTool describes a tool whose arguments decode into In and whose
// canonical value encodes from Out. [Define] turns it into a [Tool].
//
// Schemas are derived from the Go types (see [SpecFor]) unless Params or
// OutputSpec override them with the DSL.
type TypedTool[In, Out any] struct {
	Name        string
	Description string

	// Execute runs with validated, decoded arguments. Its result is handed
	// as it is to Render and PresentationMeta (no JSON round trip): none of
	// the three may change it afterwards.
	Execute func(ctx context.Context, in In, run RunContext) (Out, error)
	// Render projects the value to model content; nil renders a string
	// value as-is and anything else as its canonical JSON text.
	Render func(in In, out Out) ([]card.Content, error)
	// PresentationMeta is the optional replayable presentation projection.
	// value is out as the canonical Value (validated): a meta may share
	// its parts, which never change, instead of converting out again.
	PresentationMeta func(in In, out Out, value jsonv.Value) (jsonv.Value, error)

	FinalizeContent   func(exec Execution, r Result) ([]card.Content, bool)
	Timeout           time.Duration
	IsConcurrencySafe func(in In) bool // called only with valid arguments
	// Presenters validate softly: invalid (for example, old logged)
	// arguments give the generic fallback instead of calling them.
	PresentCall   func(in In) card.CallView
	PresentResult func(in In, r ToolResult) card.ResultView
	// PreviewCall is Tool.PreviewCall, with valid arguments only.
	PreviewCall func(ctx context.Context, in In) card.CallView

	Params     []Property // overrides the parameter schema derived from In
	OutputSpec *Spec      // overrides the output schema derived from Out
}

// Define compiles a typed tool: the parameter and output schemas (author
// errors are UNSUPPORTED_SCHEMA), then wraps the callbacks so that Execute
// validates the raw arguments (INVALID_ARGS listing every violation) and
// decodes them into In, encodes Out as the canonical value, and presenters
// and the classifier see only valid arguments. Defaults are never applied.
func Define[In, Out any](d TypedTool[In, Out]) (*Tool, error) {
	if d.Timeout < 0 {
		return nil, invalidDef("defineTool(" + d.Name + "): timeoutMs must be a positive finite number")
	}
	if d.Execute == nil {
		return nil, invalidDef("defineTool(" + d.Name + "): execute is required")
	}
	var args, out *Schema
	var err error
	if d.Params != nil {
		args, err = CompileParams(d.Params...)
	} else {
		args, err = derivedSchema(reflect.TypeFor[In](), true, d.Name)
	}
	if err != nil {
		return nil, err
	}
	if d.OutputSpec != nil {
		out, err = d.OutputSpec.Compile()
	} else {
		out, err = derivedSchema(reflect.TypeFor[Out](), false, d.Name)
	}
	if err != nil {
		return nil, err
	}

	decodeIn := func(v jsonv.Value) (In, bool) {
		var in In
		if !v.IsValid() || !args.ValidArgs(v) || v.Decode(&in) != nil {
			return in, false
		}
		return in, true
	}
	t := &Tool{
		Name:            d.Name,
		Description:     d.Description,
		Parameters:      args.JSON(),
		Args:            args,
		Timeout:         d.Timeout,
		FinalizeContent: d.FinalizeContent,
		Output:          Output{Schema: out.JSON()},
		out:             out,
	}
	t.Execute = func(ctx context.Context, raw jsonv.Value, run RunContext) (jsonv.Value, error) {
		if v := args.Validate(raw, ""); v != nil {
			return jsonv.Value{}, ArgsError(v)
		}
		var in In
		if err := raw.Decode(&in); err != nil {
			return jsonv.Value{}, ArgsError([]string{"arguments do not decode: " + err.Error()})
		}
		res, err := d.Execute(ctx, in, run)
		if err != nil {
			return jsonv.Value{}, err
		}
		// The value remembers res, so that Render and PresentationMeta get
		// it back without a JSON round trip (decodeBoth).
		return jsonv.FromGoOrigin(res)
	}
	t.Output.Render = func(rawIn, value jsonv.Value) ([]card.Content, error) {
		if d.Render == nil {
			if value.Kind() == jsonv.String {
				return []card.Content{card.Text(value.Str())}, nil
			}
			return []card.Content{card.Text(value.String())}, nil
		}
		in, o, err := decodeBoth[In, Out](rawIn, value)
		if err != nil {
			return nil, err
		}
		return d.Render(in, o)
	}
	if d.PresentationMeta != nil {
		t.Output.PresentationMeta = func(rawIn, value jsonv.Value) (jsonv.Value, error) {
			in, o, err := decodeBoth[In, Out](rawIn, value)
			if err != nil {
				return jsonv.Value{}, err
			}
			return d.PresentationMeta(in, o, value)
		}
	}
	if d.IsConcurrencySafe != nil {
		t.IsConcurrencySafe = func(v jsonv.Value) bool {
			in, ok := decodeIn(v)
			return ok && d.IsConcurrencySafe(in)
		}
	}
	if d.PresentCall != nil {
		t.PresentCall = func(v jsonv.Value) card.CallView {
			if in, ok := decodeIn(v); ok {
				return d.PresentCall(in)
			}
			return nil
		}
	}
	if d.PreviewCall != nil {
		t.PreviewCall = func(ctx context.Context, v jsonv.Value) card.CallView {
			if in, ok := decodeIn(v); ok {
				return d.PreviewCall(ctx, in)
			}
			return nil
		}
	}
	if d.PresentResult != nil {
		t.PresentResult = func(v jsonv.Value, r ToolResult) card.ResultView {
			if in, ok := decodeIn(v); ok {
				return d.PresentResult(in, r)
			}
			return nil
		}
	}
	return t, nil
}

// derived caches the schemas derived from Go types: every session defines
// the same tools again, and deriving and compiling their schemas was most
// of what a session/new cost beyond creating its log. Schemas are
// immutable; failures are not cached (their messages name the tool).
var derived sync.Map // derivedKey → *Schema

type derivedKey struct {
	t      reflect.Type
	params bool // the arguments' schema (else the output's)
}

// derivedSchema is the compiled schema of t: as tool parameters (a struct's
// fields) when params is set, else as an output value.
func derivedSchema(t reflect.Type, params bool, tool string) (*Schema, error) {
	key := derivedKey{t, params}
	if s, ok := derived.Load(key); ok {
		return s.(*Schema), nil
	}
	spec, err := SpecFor(t)
	if err != nil {
		return nil, err
	}
	var s *Schema
	if params {
		if spec.Type != "object" {
			return nil, invalidDef(fmt.Sprintf("defineTool(%s): arguments type %v must be a struct", tool, t))
		}
		s, err = CompileParams(spec.Properties...)
	} else {
		s, err = spec.Compile()
	}
	if err != nil {
		return nil, err
	}
	actual, _ := derived.LoadOrStore(key, s)
	return actual.(*Schema), nil
}

// decodeBoth decodes the arguments and the value; a value Execute just
// returned is handed back as it was (its origin), undecoded. A value from
// anywhere else (a log, a post-execute replacement) is decoded.
func decodeBoth[In, Out any](rawIn, value jsonv.Value) (In, Out, error) {
	var in In
	var o Out
	if err := rawIn.Decode(&in); err != nil {
		return in, o, fmt.Errorf("arguments do not decode: %w", err)
	}
	if orig, ok := value.Origin().(Out); ok {
		return in, orig, nil
	}
	if err := value.Decode(&o); err != nil {
		return in, o, fmt.Errorf("value does not decode: %w", err)
	}
	return in, o, nil
}

var (
	valueType     = reflect.TypeFor[jsonv.Value]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// SpecFor derives a DSL spec from a Go type, following encoding/json's
// names:
//   - string, bool, integers and floats map to their JSON types; []byte is a
//     (base64) string; jsonv.Value, json.RawMessage, interfaces and other
//     json.Marshalers are unconstrained JSON;
//   - slices and arrays are arrays; map[string]T is an open object;
//   - a struct is a closed object (additionalProperties false) of its
//     exported fields; embedded structs without a json name are flattened;
//   - a field is required unless tagged omitempty or omitzero; a pointer
//     field without those is required and nullable (oneOf its type and
//     null), since encoding/json writes a nil pointer as null; `desc:"…"`
//     and `title:"…"` tags annotate it, and `enum:"a,b"` restricts it
//     (values parsed as the field's type). Nil slices and maps marshal as
//     null too: give them omitempty or a non-nil value.
//
// A recursive type has no finite schema in the subset and is reported as
// circular.
func SpecFor(t reflect.Type) (*Spec, error) {
	d := deriver{onPath: map[reflect.Type]bool{}}
	return d.specOf(t, "schema")
}

type deriver struct{ onPath map[reflect.Type]bool }

func (d *deriver) specOf(t reflect.Type, path string) (*Spec, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == valueType || t == rawType:
		return JSON(), nil
	case t.Kind() == reflect.Interface:
		return JSON(), nil
	case t.Kind() != reflect.Struct && t.Implements(marshalerType):
		return JSON(), nil
	}
	switch t.Kind() {
	case reflect.String:
		return String(), nil
	case reflect.Bool:
		return Boolean(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Integer(), nil
	case reflect.Float32, reflect.Float64:
		return Number(), nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return String(), nil
		}
		if d.onPath[t] {
			return nil, SchemaError([]string{path + " is circular"})
		}
		d.onPath[t] = true
		defer delete(d.onPath, t)
		items, err := d.specOf(t.Elem(), path+".items")
		if err != nil {
			return nil, err
		}
		return Array(items), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, SchemaError([]string{fmt.Sprintf("%s: map key type %v is not a string", path, t.Key())})
		}
		return Object(true), nil
	case reflect.Struct:
		if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
			return JSON(), nil
		}
		if d.onPath[t] {
			return nil, SchemaError([]string{path + " is circular"})
		}
		d.onPath[t] = true
		defer delete(d.onPath, t)
		props, err := d.fields(t, path+".properties")
		if err != nil {
			return nil, err
		}
		return Object(false, props...), nil
	}
	return nil, SchemaError([]string{fmt.Sprintf("%s: Go type %v has no JSON schema", path, t)})
}

func (d *deriver) fields(t reflect.Type, path string) ([]Property, error) {
	var props []Property
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				inner, err := d.fields(ft, path)
				if err != nil {
					return nil, err
				}
				props = append(props, inner...)
				continue
			}
			if !f.IsExported() {
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		s, err := d.specOf(ft, path+"."+name)
		if err != nil {
			return nil, err
		}
		s.Description = f.Tag.Get("desc")
		s.Title = f.Tag.Get("title")
		if e, ok := f.Tag.Lookup("enum"); ok {
			s.Enum = enumValues(e, s.Type)
		}
		omit := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		if ft.Kind() == reflect.Pointer && !omit {
			// encoding/json writes a nil pointer as null: required, nullable.
			nullable := OneOf(s, NullType())
			nullable.Description, nullable.Title, s.Description, s.Title = s.Description, s.Title, "", ""
			s = nullable
		}
		props = append(props, Property{Name: name, Spec: s, Required: !omit})
	}
	return props, nil
}

// enumValues parses a comma-separated enum tag as the node's type. A value
// that does not parse stays a string, which the subset check then rejects
// as an enum value of the wrong type.
func enumValues(tag, typ string) []any {
	parts := strings.Split(tag, ",")
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
		switch typ {
		case "integer":
			if n, err := strconv.ParseInt(p, 10, 64); err == nil {
				out[i] = n
			}
		case "number":
			if n, err := strconv.ParseFloat(p, 64); err == nil {
				out[i] = n
			}
		case "boolean":
			if b, err := strconv.ParseBool(p); err == nil {
				out[i] = b
			}
		}
	}
	return out
}
