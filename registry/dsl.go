package registry

import (
	"strconv"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Spec is one node of the author-facing value-schema DSL (the seed's
// ValueSchemaSpec). Build nodes with the constructors ([String], [Number],
// [Integer], [Boolean], [NullType], [Array], [Object], [JSON], [OneOf]) and
// the chainable annotation methods, or fill the struct directly; either way
// [Spec.Compile] checks what Go's types cannot (an enum value of the wrong
// type, a oneOf with one branch, an object without an explicit openness, a
// cycle) and compiles to the enforced subset.
//
// A Spec is a description, not a schema: it is read only by Compile, which
// copies what it needs, so changing a Spec afterwards changes no schema.
type Spec struct {
	// Type is "string", "number", "integer", "boolean", "null", "array",
	// "object" or the author-only "json" (any lossless JSON value). It is
	// empty for a oneOf node.
	Type string

	Description string
	Title       string
	Default     any // annotation; must be lossless JSON; nil means absent (use jsonv.NullValue() for null)
	Examples    any // annotation, as Default

	Enum  []any // scalar types only: typed literal values
	Const any   // scalar types only; nil means absent (use jsonv.NullValue() for null)

	Items *Spec // arrays; nil accepts any item

	// Properties are an object's properties in declaration order. A
	// property's Required flag is allowed here and in [CompileParams] only.
	Properties []Property
	// AdditionalProperties must be stated for objects: [Object] takes it
	// as an argument.
	AdditionalProperties *bool

	OneOf []*Spec // at least two branches; exactly one must match

}

// Property is one named property of an object or parameter spec.
type Property struct {
	Name     string
	Spec     *Spec
	Required bool
}

// String returns a string node.
func String() *Spec { return &Spec{Type: "string"} }

// Number returns a finite-number node.
func Number() *Spec { return &Spec{Type: "number"} }

// Integer returns an integer node.
func Integer() *Spec { return &Spec{Type: "integer"} }

// Boolean returns a boolean node.
func Boolean() *Spec { return &Spec{Type: "boolean"} }

// NullType returns a node that accepts only null.
func NullType() *Spec { return &Spec{Type: "null"} }

// JSON returns the author-only node that accepts any lossless JSON value; it
// compiles to an annotation-only schema.
func JSON() *Spec { return &Spec{Type: "json"} }

// Array returns an array node; items may be nil (any item).
func Array(items *Spec) *Spec { return &Spec{Type: "array", Items: items} }

// Object returns an object node with an explicit openness and properties.
func Object(additionalProperties bool, props ...Property) *Spec {
	return &Spec{Type: "object", AdditionalProperties: &additionalProperties, Properties: props}
}

// OneOf returns an exact-one union of branches.
func OneOf(branches ...*Spec) *Spec { return &Spec{OneOf: branches} }

// Prop returns an optional property.
func Prop(name string, s *Spec) Property { return Property{Name: name, Spec: s} }

// Req returns a required property.
func Req(name string, s *Spec) Property { return Property{Name: name, Spec: s, Required: true} }

// Describe sets the description annotation and returns s.
func (s *Spec) Describe(d string) *Spec { s.Description = d; return s }

// Titled sets the title annotation and returns s.
func (s *Spec) Titled(t string) *Spec { s.Title = t; return s }

// WithDefault sets the default annotation and returns s.
func (s *Spec) WithDefault(v any) *Spec { s.Default = v; return s }

// WithExamples sets the examples annotation and returns s.
func (s *Spec) WithExamples(v any) *Spec { s.Examples = v; return s }

// OneOfValues sets the enum of a scalar node and returns s. Calling it with
// no values states an empty enum, which Compile rejects.
func (s *Spec) OneOfValues(values ...any) *Spec { s.Enum = append([]any{}, values...); return s }

// Exactly sets the const of a scalar node and returns s.
func (s *Spec) Exactly(v any) *Spec { s.Const = v; return s }

// Compile compiles a value spec (any root: object, array, scalar or null)
// to the enforced subset. Author errors come back as one UNSUPPORTED_SCHEMA
// *Error, path-qualified from "schema".
func (s *Spec) Compile() (*Schema, error) {
	raw, err := compileSpec(s, "schema")
	if err != nil {
		return nil, err
	}
	return CompileSchema(raw)
}

// CompileParams compiles tool parameters: an implicit open object whose
// properties carry their own Required flag. The result has "properties"
// (possibly empty) and "required" in declaration order when any property is
// required; "additionalProperties" is never emitted.
func CompileParams(props ...Property) (*Schema, error) {
	obj, err := compileProps(props, "parameters", map[*Spec]bool{})
	if err != nil {
		return nil, err
	}
	raw, err := jsonv.ObjectValue(append([]jsonv.Member{{Key: "type", Value: jsonv.MustString("object")}}, obj...)...)
	if err != nil {
		return nil, SchemaError([]string{"parameters " + err.Error()})
	}
	return CompileSchema(raw)
}

func authorError(msg string) error { return SchemaError([]string{msg}) }

// compileSpec converts a spec tree to raw JSON Schema. It recurses only
// through compileSpec/compileProps; depth is bounded by the author's Go
// data, which the cycle check keeps finite.
func compileSpec(s *Spec, path string) (jsonv.Value, error) {
	return (&specCompiler{onPath: map[*Spec]bool{}}).node(s, path)
}

type specCompiler struct{ onPath map[*Spec]bool }

func (c *specCompiler) node(s *Spec, path string) (jsonv.Value, error) {
	if s == nil {
		return jsonv.Value{}, authorError(path + " must be a value schema object")
	}
	if c.onPath[s] {
		return jsonv.Value{}, authorError(path + " is circular")
	}
	c.onPath[s] = true
	defer delete(c.onPath, s)

	var m []jsonv.Member
	unsupported := func(k string) error { return authorError(path + "." + k + " is not supported by the value schema DSL") }
	if s.OneOf != nil {
		if s.Type != "" {
			return jsonv.Value{}, authorError(path + " cannot declare both type and oneOf")
		}
		if err := c.forbid(s, unsupported, "items", "properties", "additionalProperties", "enum", "const"); err != nil {
			return jsonv.Value{}, err
		}
		branches := make([]jsonv.Value, len(s.OneOf))
		for i, b := range s.OneOf {
			v, err := c.node(b, path+".oneOf["+strconv.Itoa(i)+"]")
			if err != nil {
				return jsonv.Value{}, err
			}
			branches[i] = v
		}
		m = append(m, jsonv.Member{Key: "oneOf", Value: jsonv.MustArray(branches...)})
		return c.annotate(s, m, path)
	}
	switch s.Type {
	case "json":
		if err := c.forbid(s, unsupported, "items", "properties", "additionalProperties", "enum", "const"); err != nil {
			return jsonv.Value{}, err
		}
		return c.annotate(s, nil, path)
	case "object":
		if err := c.forbid(s, unsupported, "items", "enum", "const"); err != nil {
			return jsonv.Value{}, err
		}
		if s.AdditionalProperties == nil {
			return jsonv.Value{}, authorError(path + ".additionalProperties must be explicitly true or false")
		}
		m = append(m, jsonv.Member{Key: "type", Value: jsonv.MustString("object")})
		ann, err := c.annotations(s, path)
		if err != nil {
			return jsonv.Value{}, err
		}
		m = append(m, ann...)
		m = append(m, jsonv.Member{Key: "additionalProperties", Value: jsonv.BoolValue(*s.AdditionalProperties)})
		if s.Properties != nil {
			props, err := compileProps(s.Properties, path+".properties", c.onPath)
			if err != nil {
				return jsonv.Value{}, err
			}
			m = append(m, props...)
		}
		return jsonv.ObjectValue(m...)
	case "array":
		if err := c.forbid(s, unsupported, "properties", "additionalProperties", "enum", "const"); err != nil {
			return jsonv.Value{}, err
		}
		m = append(m, jsonv.Member{Key: "type", Value: jsonv.MustString("array")})
		ann, err := c.annotations(s, path)
		if err != nil {
			return jsonv.Value{}, err
		}
		m = append(m, ann...)
		if s.Items != nil {
			it, err := c.node(s.Items, path+".items")
			if err != nil {
				return jsonv.Value{}, err
			}
			m = append(m, jsonv.Member{Key: "items", Value: it})
		}
		return jsonv.ObjectValue(m...)
	case "string", "number", "integer", "boolean", "null":
		if err := c.forbid(s, unsupported, "items", "properties", "additionalProperties"); err != nil {
			return jsonv.Value{}, err
		}
		m = append(m, jsonv.Member{Key: "type", Value: jsonv.MustString(s.Type)})
		ann, err := c.annotations(s, path)
		if err != nil {
			return jsonv.Value{}, err
		}
		m = append(m, ann...)
		if s.Enum != nil {
			items := make([]jsonv.Value, len(s.Enum))
			for i, e := range s.Enum {
				v, err := jsonv.FromGo(e)
				if err != nil {
					return jsonv.Value{}, authorError(path + ".enum must be a non-empty array of " + s.Type + " values")
				}
				items[i] = v
			}
			m = append(m, jsonv.Member{Key: "enum", Value: jsonv.MustArray(items...)})
		}
		if s.Const != nil {
			v, err := jsonv.FromGo(s.Const)
			if err != nil {
				return jsonv.Value{}, authorError(path + ".const must be a " + s.Type + " value")
			}
			m = append(m, jsonv.Member{Key: "const", Value: v})
		}
		return jsonv.ObjectValue(m...)
	default:
		return jsonv.Value{}, authorError(path + ".type must be string/number/integer/boolean/null/array/object/json, or use oneOf")
	}
}

// forbid rejects DSL fields that the node's kind does not have.
func (c *specCompiler) forbid(s *Spec, fail func(string) error, keys ...string) error {
	for _, k := range keys {
		set := false
		switch k {
		case "items":
			set = s.Items != nil
		case "properties":
			set = s.Properties != nil
		case "additionalProperties":
			set = s.AdditionalProperties != nil
		case "enum":
			set = s.Enum != nil
		case "const":
			set = s.Const != nil
		}
		if set {
			return fail(k)
		}
	}
	return nil
}

func (c *specCompiler) annotate(s *Spec, m []jsonv.Member, path string) (jsonv.Value, error) {
	ann, err := c.annotations(s, path)
	if err != nil {
		return jsonv.Value{}, err
	}
	return jsonv.ObjectValue(append(m, ann...)...)
}

func (c *specCompiler) annotations(s *Spec, path string) ([]jsonv.Member, error) {
	var m []jsonv.Member
	if s.Description != "" {
		d, err := jsonv.StringValue(s.Description)
		if err != nil {
			return nil, authorError(path + ".description annotation must be lossless JSON data")
		}
		m = append(m, jsonv.Member{Key: "description", Value: d})
	}
	if s.Title != "" {
		t, err := jsonv.StringValue(s.Title)
		if err != nil {
			return nil, authorError(path + ".title annotation must be lossless JSON data")
		}
		m = append(m, jsonv.Member{Key: "title", Value: t})
	}
	for _, a := range []struct {
		key string
		v   any
	}{{"default", s.Default}, {"examples", s.Examples}} {
		if a.v == nil {
			continue
		}
		v, err := jsonv.FromGo(a.v)
		if err != nil {
			return nil, authorError(path + "." + a.key + " annotation must be lossless JSON data")
		}
		m = append(m, jsonv.Member{Key: a.key, Value: v})
	}
	return m, nil
}

// compileProps returns the "properties" member and, when any property is
// required, the "required" member.
func compileProps(props []Property, path string, onPath map[*Spec]bool) ([]jsonv.Member, error) {
	c := &specCompiler{onPath: onPath}
	members := make([]jsonv.Member, 0, len(props))
	var required []jsonv.Value
	for _, p := range props {
		v, err := c.node(p.Spec, path+"."+p.Name)
		if err != nil {
			return nil, err
		}
		members = append(members, jsonv.Member{Key: p.Name, Value: v})
		if p.Required {
			r, err := jsonv.StringValue(p.Name)
			if err != nil {
				return nil, authorError(path + "." + p.Name + " name must be valid UTF-8")
			}
			required = append(required, r)
		}
	}
	obj, err := jsonv.ObjectValue(members...)
	if err != nil {
		return nil, authorError(path + " has an invalid property name: " + err.(*jsonv.JSONError).Msg)
	}
	m := []jsonv.Member{{Key: "properties", Value: obj}}
	if len(required) > 0 {
		m = append(m, jsonv.Member{Key: "required", Value: jsonv.MustArray(required...)})
	}
	return m, nil
}
