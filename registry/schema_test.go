package registry

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

const subsetList = " is not a supported keyword (subset: type/oneOf/properties/required/additionalProperties/items/enum/const + annotations)"

func TestCompileSchema_Accepts(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"empty schema is any JSON", `{}`},
		{"annotation only", `{"description":"d","title":"t","default":{"x":[1]},"examples":[1,"a"]}`},
		{"scalar root", `{"type":"string"}`},
		{"null root", `{"type":"null"}`},
		{"array root without items", `{"type":"array"}`},
		{"array with items", `{"type":"array","items":{"type":"integer"}}`},
		{"closed object", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`},
		{"open object", `{"type":"object","additionalProperties":true}`},
		{"oneOf two branches", `{"oneOf":[{"type":"string"},{"type":"null"}]}`},
		{"typed enum", `{"type":"string","enum":["a","b"]}`},
		{"integer enum with integral float", `{"type":"integer","enum":[1,2.0]}`},
		{"const in enum", `{"type":"number","enum":[1,2],"const":2}`},
		{"null const", `{"type":"null","const":null}`},
		{"property named __proto__", `{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}`},
		{"sibling reuse of same shape", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CompileSchema(jsonv.MustParse(tc.schema)); err != nil {
				t.Fatalf("got %v, want accepted", err)
			}
		})
	}
}

func TestCompileSchema_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   []string
	}{
		{"non-object root", `"string"`, []string{"schema must be a schema object"}},
		{"array root", `[]`, []string{"schema must be a schema object"}},
		{"anyOf", `{"anyOf":[{},{}]}`, []string{"schema.anyOf" + subsetList}},
		{"every unsupported keyword reported", `{"type":"string","pattern":"x","maxLength":3}`, []string{"schema.pattern" + subsetList, "schema.maxLength" + subsetList}},
		{"ref", `{"$ref":"#/x"}`, []string{"schema.$ref" + subsetList}},
		{"description not string", `{"description":1}`, []string{"schema.description must be a string"}},
		{"title not string", `{"type":"string","title":false}`, []string{"schema.title must be a string"}},
		{"type and oneOf", `{"type":"string","oneOf":[{},{}]}`, []string{"schema cannot declare both type and oneOf"}},
		{"constraints without type", `{"properties":{},"enum":[1]}`, []string{"schema.properties requires type or oneOf", "schema.enum requires type or oneOf"}},
		{"type array", `{"type":["string","null"]}`, []string{"schema.type must be a single type string (type arrays are not supported)"}},
		{"unknown type", `{"type":"date"}`, []string{"schema.type must be one of object/array/string/number/integer/boolean/null"}},
		{"items on string", `{"type":"string","items":{}}`, []string{`schema.items is not supported on type "string"`}},
		{"properties on array", `{"type":"array","properties":{}}`, []string{`schema.properties is not supported on type "array"`}},
		{"enum on object", `{"type":"object","enum":[1]}`, []string{`schema.enum is not supported on type "object"`}},
		{"oneOf with one branch", `{"oneOf":[{}]}`, []string{"schema.oneOf must be an array of at least two schemas"}},
		{"oneOf not array", `{"oneOf":{}}`, []string{"schema.oneOf must be an array of at least two schemas"}},
		{"keyword beside oneOf", `{"oneOf":[{},{}],"items":{}}`, []string{"schema.items is not supported beside oneOf"}},
		{"bad branch path", `{"oneOf":[{"type":"string"},{"type":"x"}]}`, []string{"schema.oneOf[1].type must be one of object/array/string/number/integer/boolean/null"}},
		{"enum wrong type", `{"type":"string","enum":["a",1]}`, []string{"schema.enum must be a non-empty array of string values"}},
		{"enum empty", `{"type":"number","enum":[]}`, []string{"schema.enum must be a non-empty array of number values"}},
		{"integer enum fraction", `{"type":"integer","enum":[1.5]}`, []string{"schema.enum must be a non-empty array of integer values"}},
		{"const wrong type", `{"type":"boolean","const":"true"}`, []string{"schema.const must be a boolean value"}},
		{"const outside enum", `{"type":"string","enum":["a"],"const":"b"}`, []string{"schema.const must be one of schema.enum when both are declared"}},
		{"required not array", `{"type":"object","properties":{},"required":"a"}`, []string{"schema.required must be an array of strings"}},
		{"required names missing property", `{"type":"object","properties":{"a":{}},"required":["a","toString"]}`, []string{`schema.required names "toString" which is not in properties`}},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{}}`, []string{"schema.additionalProperties must be a boolean"}},
		{"properties not object", `{"type":"object","properties":[]}`, []string{"schema.properties must be an object of schemas"}},
		{"nested property path", `{"type":"object","properties":{"a":{"type":"array","items":{"minimum":1}}}}`, []string{"schema.properties.a.items.minimum" + subsetList}},
		{"property schema not object", `{"type":"object","properties":{"a":true}}`, []string{"schema.properties.a must be a schema object"}},
		{"children before object tail", `{"type":"object","properties":{"a":{"type":"x"}},"required":["b"]}`, []string{
			"schema.properties.a.type must be one of object/array/string/number/integer/boolean/null",
			`schema.required names "b" which is not in properties`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileSchema(jsonv.MustParse(tc.schema))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Code != CodeUnsupportedSchema || e.Name != "JsonSchemaError" || !errors.Is(err, ErrUnsupportedSchema) {
				t.Errorf("got code %q name %q", e.Code, e.Name)
			}
			if !reflect.DeepEqual(e.Violations, tc.want) {
				t.Errorf("got violations\n  %q\nwant\n  %q", e.Violations, tc.want)
			}
			if want := "unsupported JSON schema: " + strings.Join(tc.want, "; "); e.Message != want {
				t.Errorf("got message %q, want %q", e.Message, want)
			}
		})
	}
}

func TestCompileObjectSchema(t *testing.T) {
	if _, err := CompileObjectSchema(jsonv.MustParse(`{"type":"object"}`)); err != nil {
		t.Errorf("object root rejected: %v", err)
	}
	_, err := CompileObjectSchema(jsonv.MustParse(`{"type":"array"}`))
	if err == nil || err.Error() != `unsupported JSON schema: schema.type must be "object" (structured output is object-rooted)` {
		t.Errorf("got %v", err)
	}
}

func TestCompileSchema_DeepNesting(t *testing.T) {
	const depth = 5000
	s := strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat("}", depth)
	schema, err := CompileSchema(jsonv.MustParse(s))
	if err != nil {
		t.Fatal(err)
	}
	ok := strings.Repeat("[", depth) + `"x"` + strings.Repeat("]", depth)
	if v := schema.Validate(jsonv.MustParse(ok), "value"); v != nil {
		t.Errorf("deep valid value rejected: %v", v)
	}
	bad := strings.Repeat("[", depth) + `1` + strings.Repeat("]", depth)
	v := schema.Validate(jsonv.MustParse(bad), "value")
	if len(v) != 1 || !strings.HasSuffix(v[0], `[0]" must be a string`) {
		t.Errorf("deep invalid value: got %d violations", len(v))
	}
	broken := strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"strin"}` + strings.Repeat("}", depth)
	if _, err := CompileSchema(jsonv.MustParse(broken)); err == nil {
		t.Errorf("deep broken schema accepted")
	}
}

func TestSchema_Validate(t *testing.T) {
	const editSchema = `{"type":"object","properties":{"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["file_path","old_string","new_string"]}`
	for _, tc := range []struct {
		name, schema, value, path string
		want                      []string
	}{
		{"string ok", `{"type":"string"}`, `"a"`, "value", nil},
		{"string wrong", `{"type":"string"}`, `1`, "value", []string{`"value" must be a string`}},
		{"number wrong", `{"type":"number"}`, `"1"`, "value", []string{`"value" must be a number`}},
		{"integer fraction", `{"type":"integer"}`, `1.5`, "value", []string{`"value" must be an integer`}},
		{"integer integral float ok", `{"type":"integer"}`, `2.0`, "value", nil},
		{"huge integer ok", `{"type":"integer"}`, `123456789012345678901234567890`, "value", nil},
		{"boolean wrong", `{"type":"boolean"}`, `"true"`, "value", []string{`"value" must be a boolean`}},
		{"null wrong", `{"type":"null"}`, `0`, "value", []string{`"value" must be null`}},
		{"object wrong", `{"type":"object"}`, `[]`, "value", []string{`"value" must be an object`}},
		{"array wrong", `{"type":"array"}`, `{}`, "value", []string{`"value" must be an array`}},
		{"enum checked before const", `{"type":"string","enum":["a","b"],"const":"a"}`, `"c"`, "value", []string{`"value" must be one of ["a","b"]`}},
		{"const", `{"type":"string","const":"a"}`, `"b"`, "value", []string{`"value" must be "a"`}},
		{"number enum numeric equality", `{"type":"number","enum":[1,2]}`, `1.0`, "value", nil},
		{"unconstrained accepts anything", `{}`, `{"x":[1,null]}`, "value", nil},
		{"array items paths", `{"type":"array","items":{"type":"integer"}}`, `[1,"a",2,true]`, "value", []string{`"value[1]" must be an integer`, `"value[3]" must be an integer`}},
		{"oneOf exactly one", `{"oneOf":[{"type":"string"},{"type":"null"}]}`, `null`, "value", nil},
		{"oneOf none", `{"oneOf":[{"type":"string"},{"type":"null"}]}`, `1`, "value", []string{`"value" must match exactly one oneOf branch (matched 0)`}},
		{"oneOf overlap number integer", `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1`, "value", []string{`"value" must match exactly one oneOf branch (matched 2)`}},
		{"oneOf overlap resolved by fraction", `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1.5`, "value", nil},
		{"required missing", `{"type":"object","properties":{"a":{}},"required":["a"]}`, `{}`, "value", []string{`missing required property "value.a"`}},
		{"closed object extra key", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, "value", []string{`"value.b" is not a declared property (additionalProperties: false)`}},
		{"open object extra key", `{"type":"object","properties":{"a":{}}}`, `{"b":2}`, "value", nil},
		{"object order: required, declared, undeclared", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{}},"required":["c"],"additionalProperties":false}`, `{"z":1,"b":1,"a":1}`, "value", []string{
			`missing required property "value.c"`, `"value.a" must be a string`, `"value.b" must be a string`, `"value.z" is not a declared property (additionalProperties: false)`,
		}},
		{"arguments root label", `{"type":"object"}`, `"x"`, "", []string{`"arguments" must be an object`}},
		{"arguments property paths have no dot", editSchema, `{"file_path":1,"old_string":"a"}`, "", []string{`missing required property "new_string"`, `"file_path" must be a string`}},
		{"arguments nested path", `{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"integer"}}}}}`, `{"o":{"k":"x"}}`, "", []string{`"o.k" must be an integer`}},
		{"edit args valid", editSchema, `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":true}`, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := MustCompileSchema(jsonv.MustParse(tc.schema))
			got := s.Validate(jsonv.MustParse(tc.value), tc.path)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if s.ValidArgs(jsonv.MustParse(tc.value)) != (tc.want == nil) {
				t.Errorf("ValidArgs disagrees with Validate")
			}
		})
	}
}

func TestSchema_ValidateAbsentValue(t *testing.T) {
	s := MustCompileSchema(jsonv.MustParse(`{"type":"string"}`))
	if got := s.Validate(jsonv.Value{}, "value"); len(got) != 1 || got[0] != `"value" must be a lossless JSON value` {
		t.Errorf("got %q", got)
	}
}
