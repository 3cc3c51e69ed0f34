package mcptools

import (
	"encoding/json"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// narrowing keywords only make a schema accept less: dropping them makes
// validation looser, never wrong (the server still checks them).
var narrowing = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true,
	"minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true,
	"readOnly": true, "writeOnly": true, "deprecated": true, "contentEncoding": true, "contentMediaType": true,
}

// argsSchema compiles an MCP input schema for the pipeline's INVALID_ARGS
// check: narrowing keywords are dropped, and what is left must fit the
// registry's subset. Nil means the arguments go to the server unchecked
// (the schema uses $ref, anyOf and the like).
func argsSchema(raw jsonv.Value) *registry.Schema {
	if !raw.IsValid() {
		return nil
	}
	var x any
	if json.Unmarshal(raw.Bytes(), &x) != nil {
		return nil
	}
	v, err := jsonv.FromGo(loosen(x, false))
	if err != nil {
		return nil
	}
	s, err := registry.CompileObjectSchema(v)
	if err != nil {
		return nil
	}
	return s
}

// loosen drops narrowing keywords from every schema node; inProps marks a
// properties map, whose keys are property names, not keywords.
func loosen(x any, inProps bool) any {
	switch t := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			if !inProps && narrowing[k] {
				continue
			}
			out[k] = loosen(v, !inProps && k == "properties")
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = loosen(v, false)
		}
		return out
	}
	return x
}

// inputSchema is a tool's input schema as lossless JSON, an open object
// schema when the server gave none or an unusable one.
func inputSchema(schema any) jsonv.Value {
	if schema != nil {
		if b, err := json.Marshal(schema); err == nil {
			if v, err := jsonv.Parse(b); err == nil && v.Kind() == jsonv.Object {
				return v
			}
		}
	}
	return jsonv.MustParse(`{"type":"object"}`)
}
