package registry

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// genSpec builds a random DSL spec of bounded depth.
func genSpec(r *rand.Rand, depth int) *Spec {
	k := r.IntN(9)
	if depth <= 0 && k >= 5 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		s := String()
		if r.IntN(3) == 0 {
			s.OneOfValues("a", "b", "c")
		}
		return s
	case 1:
		return Number()
	case 2:
		s := Integer()
		if r.IntN(4) == 0 {
			s.Exactly(int64(r.IntN(3)))
		}
		return s
	case 3:
		return Boolean()
	case 4:
		return NullType()
	case 5:
		if r.IntN(2) == 0 {
			return Array(nil)
		}
		return Array(genSpec(r, depth-1))
	case 6, 7:
		props := make([]Property, r.IntN(4))
		for i := range props {
			props[i] = Property{Name: "p" + strconv.Itoa(i), Spec: genSpec(r, depth-1), Required: r.IntN(2) == 0}
		}
		return Object(r.IntN(2) == 0, props...)
	default:
		return OneOf(genSpec(r, depth-1), genSpec(r, depth-1))
	}
}

// genValue builds a random value that is often, but not always, shaped like
// the spec.
func genValue(r *rand.Rand, s *Spec, depth int) any {
	if r.IntN(8) == 0 || depth <= 0 {
		return []any{nil, true, 1.5, int64(2), "a", []any{}, map[string]any{}}[r.IntN(7)]
	}
	if s.OneOf != nil {
		return genValue(r, s.OneOf[r.IntN(len(s.OneOf))], depth)
	}
	switch s.Type {
	case "string":
		return []string{"a", "b", "z"}[r.IntN(3)]
	case "number":
		return []any{1.5, int64(3), -2.25}[r.IntN(3)]
	case "integer":
		return int64(r.IntN(3))
	case "boolean":
		return r.IntN(2) == 0
	case "null":
		return nil
	case "array":
		out := make([]any, r.IntN(3))
		for i := range out {
			if s.Items != nil {
				out[i] = genValue(r, s.Items, depth-1)
			} else {
				out[i] = int64(i)
			}
		}
		return out
	case "object":
		m := map[string]any{}
		for _, p := range s.Properties {
			if p.Required || r.IntN(2) == 0 {
				m[p.Name] = genValue(r, p.Spec, depth-1)
			}
		}
		if r.IntN(5) == 0 {
			m["extra"] = 1
		}
		return m
	}
	return nil
}

// requiredMatches checks that every compiled object's "required" lists
// exactly its Required properties, in order, at every level.
func requiredMatches(t *testing.T, s *Spec, raw jsonv.Value) {
	t.Helper()
	if s.OneOf != nil {
		branches, _ := raw.Get("oneOf")
		for i, b := range s.OneOf {
			requiredMatches(t, b, branches.Index(i))
		}
		return
	}
	switch s.Type {
	case "array":
		if s.Items != nil {
			items, _ := raw.Get("items")
			requiredMatches(t, s.Items, items)
		}
	case "object":
		var want []string
		props, _ := raw.Get("properties")
		for _, p := range s.Properties {
			if p.Required {
				want = append(want, p.Name)
			}
			child, _ := props.Get(p.Name)
			requiredMatches(t, p.Spec, child)
		}
		var got []string
		req, _ := raw.Get("required")
		for _, r := range req.All() {
			got = append(got, r.Str())
		}
		if !slices.Equal(got, want) {
			t.Errorf("required %v, want %v in %s", got, want, raw)
		}
	}
}

func oracle(t *testing.T, raw jsonv.Value) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		t.Fatalf("oracle rejects %s: %v", raw, err)
	}
	return sch
}

func TestProperty_CompileAndValidateAgreeWithOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		t.Run(fmt.Sprintf("seed%d", i), func(t *testing.T) {
			spec := genSpec(r, 3)
			s, err := spec.Compile()
			if err != nil {
				t.Fatalf("generated spec does not compile: %v", err)
			}
			requiredMatches(t, spec, s.JSON())
			o := oracle(t, s.JSON())
			for range 20 {
				v, err := jsonv.FromGo(genValue(r, spec, 3))
				if err != nil {
					t.Fatal(err)
				}
				ours := s.Validate(v, "value")
				doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(v.Bytes()))
				theirs := o.Validate(doc)
				if (ours == nil) != (theirs == nil) {
					t.Fatalf("schema %s value %s: ours %q, oracle %v", s, v, ours, theirs)
				}
				if s.ValidArgs(v) != (ours == nil) {
					t.Fatalf("quick mode disagrees for %s", v)
				}
				if walked := walk(s, v); s.root.valid(v, 0) != (walked == nil) {
					t.Fatalf("schema %s value %s: the quick check says %v, the walk %q", s, v, s.root.valid(v, 0), walked)
				}
			}
		})
	}
}

// FuzzValidate checks that arbitrary schemas and values never panic, that
// verdicts are deterministic, and that whenever our subset accepts a schema
// the full JSON Schema oracle agrees with our verdict on the value.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"oneOf":[{"type":"number"},{"type":"integer"}]}`), []byte(`1`))
	f.Add([]byte(`{"type":"string","enum":["a","b"],"const":"a"}`), []byte(`"a"`))
	f.Add([]byte(`{"type":"array","items":{"type":"integer"}}`), []byte(`[1,2.0,3.5]`))
	f.Add([]byte(`{"anyOf":[]}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, schemaBytes, valueBytes []byte) {
		raw, err := jsonv.Parse(schemaBytes)
		if err != nil {
			return
		}
		s, err1 := CompileSchema(raw)
		_, err2 := CompileSchema(raw)
		if (err1 == nil) != (err2 == nil) {
			t.Fatal("non-deterministic schema verdict")
		}
		if err1 != nil {
			return
		}
		v, err := jsonv.Parse(valueBytes)
		if err != nil {
			return
		}
		a, b := s.Validate(v, "value"), s.Validate(v, "value")
		if !slices.Equal(a, b) {
			t.Fatal("non-deterministic value verdict")
		}
		if s.ValidArgs(v) != (a == nil) {
			t.Fatal("quick mode disagrees")
		}
		if walked := walk(s, v); !slices.Equal(walked, a) || (s.root.valid(v, 0) && walked != nil) {
			t.Fatalf("the quick check or Validate disagrees with the walk: %q", walked)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw.Bytes()))
		if err != nil {
			return
		}
		c := jsonschema.NewCompiler()
		if c.AddResource("s.json", doc) != nil {
			return
		}
		o, err := c.Compile("s.json")
		if err != nil {
			return // the oracle is stricter on some annotations; not our concern
		}
		vdoc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(v.Bytes()))
		if (o.Validate(vdoc) == nil) != (a == nil) {
			t.Fatalf("schema %s value %s: ours %q disagrees with the oracle", raw, v, a)
		}
	})
}

// walk is the full iterative walk alone, without the quick check that
// Validate tries first.
func walk(s *Schema, v jsonv.Value) []string {
	w := &validator{root: "value"}
	return w.run(s.root, v)
}
