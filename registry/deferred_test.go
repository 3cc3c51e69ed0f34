package registry

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// countedLines are read lines that count how often their Value is built.
type countedLines []card.ReadFileLine

var linesBuilt atomic.Int32

func (c countedLines) DeferKind() (jsonv.Kind, bool) { return card.ReadLines(c).DeferKind() }
func (c countedLines) AppendJSON(dst []byte) ([]byte, error) {
	return card.ReadLines(c).AppendJSON(dst)
}
func (c countedLines) JSONValue() (jsonv.Value, bool) {
	linesBuilt.Add(1)
	return card.ReadLines(c).JSONValue()
}

// otherLines have the same shape and another type: a node marked for
// countedLines must still build and check them.
type otherLines []card.ReadFileLine

func (o otherLines) DeferKind() (jsonv.Kind, bool) { return jsonv.Array, true }
func (o otherLines) AppendJSON(dst []byte) ([]byte, error) {
	return append(dst, `[{"number":"one"}]`...), nil // breaks the schema
}
func (o otherLines) JSONValue() (jsonv.Value, bool) {
	return jsonv.MustParse(`[{"number":"one"}]`), true
}

type linesOut struct {
	Path  string       `json:"path"`
	Lines countedLines `json:"lines"`
}

type otherOut struct {
	Path  string     `json:"path"`
	Lines otherLines `json:"lines"`
}

func defineLines(t *testing.T, spec *Spec) *Tool {
	t.Helper()
	tool, err := Define(TypedTool[struct{}, linesOut]{
		Name:       "lines",
		OutputSpec: spec,
		Execute: func(context.Context, struct{}, RunContext) (linesOut, error) {
			return linesOut{"f.go", countedLines{{Number: 1, Text: "package main"}, {Number: 2, Text: "\t\"x\""}}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// registered is tool as a registry holds it (its output schema as the
// pipeline validates with it).
func registered(t *testing.T, tool *Tool) *Tool {
	t.Helper()
	r := New()
	if _, err := r.Register(tool, nil); err != nil {
		t.Fatal(err)
	}
	return r.Get(tool.Name, nil)
}

// TestDeferredOutput: a typed tool's deferred parts (a read's lines) are
// validated by their type against the schema derived from it, unbuilt;
// anything else is built and validated as before.
func TestDeferredOutput(t *testing.T) {
	t.Run("derived schema: valid unbuilt, written whole", func(t *testing.T) {
		tool := registered(t, defineLines(t, nil))
		v, err := run(context.Background(), tool, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		linesBuilt.Store(0)
		if msgs := tool.OutputSchema().Validate(v, "value"); msgs != nil {
			t.Fatalf("invalid: %v", msgs)
		}
		if want := `{"path":"f.go","lines":[{"number":1,"text":"package main"},{"number":2,"text":"\t\"x\""}]}`; v.String() != want {
			t.Errorf("wrote %s, want %s", v, want)
		}
		if n := linesBuilt.Load(); n != 0 {
			t.Errorf("the lines were built %d times to be validated and written", n)
		}
		// What the shortcut trusts holds: built, the lines satisfy the
		// schema derived from their type.
		built, _ := jsonv.Parse(v.Bytes())
		if msgs := tool.OutputSchema().Validate(built, "value"); msgs != nil {
			t.Errorf("the built lines fail their derived schema: %v", msgs)
		}
	})
	t.Run("another type at a marked node is built and checked", func(t *testing.T) {
		tool := registered(t, defineLines(t, nil))
		other, err := jsonv.FromGoOrigin(otherOut{"f.go", otherLines{{Number: 1, Text: "x"}}})
		if err != nil {
			t.Fatal(err)
		}
		msgs := tool.OutputSchema().Validate(other, "value")
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), "lines") {
			t.Errorf("an invalid value of another type passed: %v", msgs)
		}
	})
	t.Run("an author's schema is never trusted by type", func(t *testing.T) {
		spec := Object(false,
			Property{Name: "path", Spec: String(), Required: true},
			Property{Name: "lines", Spec: Array(Object(false,
				Property{Name: "number", Spec: Integer(), Required: true},
				Property{Name: "text", Spec: String().OneOfValues("package main"), Required: true})), Required: true})
		tool := registered(t, defineLines(t, spec))
		v, _ := run(context.Background(), tool, `{}`)
		if msgs := tool.OutputSchema().Validate(v, "value"); len(msgs) == 0 {
			t.Error(`the second line's text is not in the author's enum, and passed`)
		}
	})
	t.Run("a schema replaced after Define is the one registered", func(t *testing.T) {
		tool := defineLines(t, nil)
		tool.Output.Schema = jsonv.MustParse(`{"type":"object","additionalProperties":false,"properties":{"path":{"type":"string","enum":["other.go"]}}}`)
		reg := registered(t, tool)
		v, _ := run(context.Background(), reg, `{}`)
		if msgs := reg.OutputSchema().Validate(v, "value"); len(msgs) == 0 {
			t.Error("validated against the derived schema, not the one registered")
		}
	})
}
