package registry

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestSpec_Compile(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec *Spec
		want string
	}{
		{"string", String(), `{"type":"string"}`},
		{"annotations", String().Describe("d").Titled("t").WithDefault("x").WithExamples([]any{"a"}), `{"type":"string","description":"d","title":"t","default":"x","examples":["a"]}`},
		{"typed enum", String().OneOfValues("a", "b"), `{"type":"string","enum":["a","b"]}`},
		{"integer const", Integer().Exactly(3), `{"type":"integer","const":3}`},
		{"null", NullType(), `{"type":"null"}`},
		{"boolean", Boolean(), `{"type":"boolean"}`},
		{"number", Number(), `{"type":"number"}`},
		{"json compiles to annotation-only", JSON().Describe("any"), `{"description":"any"}`},
		{"array without items", Array(nil), `{"type":"array"}`},
		{"array of strings", Array(String()), `{"type":"array","items":{"type":"string"}}`},
		{"closed object", Object(false, Req("a", String()), Prop("b", Integer())), `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`},
		{"open object without properties", Object(true), `{"type":"object","additionalProperties":true}`},
		{"oneOf", OneOf(String(), NullType()).Describe("u"), `{"oneOf":[{"type":"string"},{"type":"null"}],"description":"u"}`},
		{"deep union", OneOf(Array(OneOf(String(), Integer())), Object(false)), `{"oneOf":[{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"integer"}]}},{"type":"object","additionalProperties":false}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.spec.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if got := s.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestSpec_CompileRejects(t *testing.T) {
	loop := Array(nil)
	loop.Items = loop
	selfObj := Object(false)
	selfObj.Properties = []Property{Prop("me", selfObj)}
	for _, tc := range []struct {
		name string
		spec *Spec
		want string
	}{
		{"object without explicit openness", &Spec{Type: "object"}, "schema.additionalProperties must be explicitly true or false"},
		{"unknown type", &Spec{Type: "date"}, "schema.type must be string/number/integer/boolean/null/array/object/json, or use oneOf"},
		{"empty type without oneOf", &Spec{}, "schema.type must be string/number/integer/boolean/null/array/object/json, or use oneOf"},
		{"type beside oneOf", &Spec{Type: "string", OneOf: []*Spec{String(), NullType()}}, "schema cannot declare both type and oneOf"},
		{"oneOf with one branch", OneOf(String()), "schema.oneOf must be an array of at least two schemas"},
		{"enum of the wrong type", String().OneOfValues("a", 1), "schema.enum must be a non-empty array of string values"},
		{"empty enum", String().OneOfValues(), "schema.enum must be a non-empty array of string values"},
		{"const of the wrong type", Boolean().Exactly("yes"), "schema.const must be a boolean value"},
		{"non-lossless enum", Number().OneOfValues(math.NaN()), "schema.enum must be a non-empty array of number values"},
		{"non-lossless default", Number().WithDefault(math.Inf(1)), "schema.default annotation must be lossless JSON data"},
		{"items on a string", &Spec{Type: "string", Items: String()}, "schema.items is not supported by the value schema DSL"},
		{"properties on an array", &Spec{Type: "array", Properties: []Property{Prop("a", String())}}, "schema.properties is not supported by the value schema DSL"},
		{"enum on an object", &Spec{Type: "object", AdditionalProperties: new(bool), Enum: []any{1}}, "schema.enum is not supported by the value schema DSL"},
		{"enum on json", &Spec{Type: "json", Enum: []any{1}}, "schema.enum is not supported by the value schema DSL"},
		{"items beside oneOf", &Spec{OneOf: []*Spec{String(), NullType()}, Items: String()}, "schema.items is not supported by the value schema DSL"},
		{"nil branch", OneOf(String(), nil), "schema.oneOf[1] must be a value schema object"},
		{"cycle through items", loop, "schema.items is circular"},
		{"cycle through properties", selfObj, "schema.properties.me is circular"},
		{"nested error path", Object(false, Prop("a", Array(&Spec{Type: "object"}))), "schema.properties.a.items.additionalProperties must be explicitly true or false"},
		{"duplicate property name", Object(false, Prop("a", String()), Prop("a", Integer())), `schema.properties has an invalid property name: duplicate object key "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.spec.Compile()
			if err == nil {
				t.Fatalf("compiled, want %q", tc.want)
			}
			if !errors.Is(err, ErrUnsupportedSchema) {
				t.Errorf("error %v is not UNSUPPORTED_SCHEMA", err)
			}
			if want := "unsupported JSON schema: " + tc.want; err.Error() != want {
				t.Errorf("got  %q\nwant %q", err, want)
			}
		})
	}
}

func TestCompileParams(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props []Property
		want  string
	}{
		{"empty compiles to empty properties", nil, `{"type":"object","properties":{}}`},
		{"required in declaration order", []Property{Req("b", String()), Prop("a", Integer()), Req("a2", Boolean())}, `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"},"a2":{"type":"boolean"}},"required":["b","a2"]}`},
		{"no required key when none required", []Property{Prop("a", String())}, `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"__proto__ is an ordinary key", []Property{Req("__proto__", String())}, `{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}`},
		{"nested required", []Property{Req("o", Object(false, Req("k", String())))}, `{"type":"object","properties":{"o":{"type":"object","additionalProperties":false,"properties":{"k":{"type":"string"}},"required":["k"]}},"required":["o"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := CompileParams(tc.props...)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if strings.Contains(s.String(), `"additionalProperties"`) && !strings.Contains(tc.want, `"additionalProperties"`) {
				t.Errorf("parameters root emitted additionalProperties")
			}
		})
	}
	if _, err := CompileParams(Req("a", &Spec{Type: "object"})); err == nil || err.Error() != "unsupported JSON schema: parameters.a.additionalProperties must be explicitly true or false" {
		t.Errorf("got %v", err)
	}
}
