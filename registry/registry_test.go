package registry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// rawTool returns a minimal raw (MCP-style) definition named name.
func rawTool(name string) *Tool {
	return &Tool{
		Name:        name,
		Description: "tool " + name,
		Parameters:  jsonv.MustParse(`{"type":"object","properties":{"x":{"type":"string"}}}`),
		Output: Output{
			Schema: jsonv.MustParse(`{}`),
			Render: func(_, v jsonv.Value) ([]card.Content, error) { return []card.Content{card.Text(v.String())}, nil },
		},
		Execute: func(context.Context, jsonv.Value, RunContext) (jsonv.Value, error) { return jsonv.NullValue(), nil },
	}
}

func mustRegister(t *testing.T, r *Registry, tool *Tool, s *Scope) func() {
	t.Helper()
	d, err := r.Register(tool, s)
	if err != nil {
		t.Fatalf("Register(%s): %v", tool.Name, err)
	}
	return d
}

func names(tools []*Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

func TestRegistry_RegisterRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Tool)
		want   string
		code   error
	}{
		{"reserved run_code", func(t *Tool) { t.Name = "run_code" }, `tool name "run_code" is reserved for the Code Mode presentation transport and cannot be registered or shadowed`, ErrInvalidDefinition},
		{"empty name", func(t *Tool) { t.Name = "" }, `tool name "" must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -`, ErrInvalidDefinition},
		{"name with space", func(t *Tool) { t.Name = "a b" }, `tool name "a b" must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -`, ErrInvalidDefinition},
		{"missing output schema", func(t *Tool) { t.Output.Schema = jsonv.Value{} }, `tool "t" must declare output { schema, render, presentationMeta? }`, ErrInvalidDefinition},
		{"missing render", func(t *Tool) { t.Output.Render = nil }, `tool "t" must declare output { schema, render, presentationMeta? }`, ErrInvalidDefinition},
		{"missing execute", func(t *Tool) { t.Execute = nil }, `tool "t" must declare execute`, ErrInvalidDefinition},
		{"missing parameters", func(t *Tool) { t.Parameters = jsonv.Value{} }, `tool "t" must declare parameters (a JSON Schema object)`, ErrInvalidDefinition},
		{"negative timeout", func(t *Tool) { t.Timeout = -time.Millisecond }, `tool "t" timeoutMs must be a positive finite number`, ErrInvalidDefinition},
		{"unsupported output schema", func(t *Tool) { t.Output.Schema = jsonv.MustParse(`{"type":"string","format":"uri"}`) }, "unsupported JSON schema: schema.format" + subsetList, ErrUnsupportedSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := rawTool("t")
			tc.mutate(tool)
			_, err := New().Register(tool, nil)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if !errors.Is(err, tc.code) {
				t.Errorf("error does not wrap %v", tc.code)
			}
		})
	}
}

func TestRegistry_RawParametersNotChecked(t *testing.T) {
	r := New()
	tool := rawTool("mcp")
	tool.Parameters = jsonv.MustParse(`{"type":"object","properties":{"n":{"type":"number","minimum":0}},"$schema":"x"}`)
	mustRegister(t, r, tool, nil)
	if got := r.Schemas(nil)[0].Parameters.String(); got != tool.Parameters.String() {
		t.Errorf("raw parameters changed: %s", got)
	}
}

func TestRegistry_Duplicates(t *testing.T) {
	r := New()
	mustRegister(t, r, rawTool("a"), nil)
	_, err := r.Register(rawTool("a"), nil)
	if err == nil || err.Error() != "tool \"a\" is already registered (for a per-agent variant, register through that agent's `agent.ctx` instead)" {
		t.Errorf("global duplicate: %v", err)
	}
	s := r.NewScope("agent", nil)
	mustRegister(t, r, rawTool("a"), s) // shadowing a global is fine
	if _, err := r.Register(rawTool("a"), s); err == nil || err.Error() != `tool "a" is already registered in this scope` {
		t.Errorf("scoped duplicate: %v", err)
	}
}

func TestRegistry_DisposerIsExact(t *testing.T) {
	r := New()
	d1 := mustRegister(t, r, rawTool("a"), nil)
	d1()
	if r.Get("a", nil) != nil {
		t.Fatal("disposer did not unregister")
	}
	d2 := mustRegister(t, r, rawTool("a"), nil)
	d1() // stale disposer: must not remove the new registration
	if r.Get("a", nil) == nil {
		t.Fatal("stale disposer removed a newer registration")
	}
	d2()
	d2()
	if r.Get("a", nil) != nil {
		t.Fatal("second disposer did not unregister")
	}
}

func TestRegistry_KeepsItsOwnCopy(t *testing.T) {
	r := New()
	tool := rawTool("a")
	mustRegister(t, r, tool, nil)
	tool.Description = "changed after registration"
	if got := r.Get("a", nil).Description; got != "tool a" {
		t.Errorf("registry saw a later change to the caller's struct: %q", got)
	}
	if r.Get("a", nil).OutputSchema() == nil {
		t.Errorf("registered tool has no compiled output schema")
	}
}

func TestRegistry_ChangeNotifications(t *testing.T) {
	t.Run("register unregister restrict are announced", func(t *testing.T) {
		r := New()
		var got []string
		stop := r.OnChange(func(c Change) error { got = append(got, fmt.Sprintf("%d:%s", c.Kind, c.Name)); return nil })
		d := mustRegister(t, r, rawTool("a"), nil)
		s := r.NewScope("s", nil)
		lift, err := r.Restrict(s, Restriction{Deny: []string{"a"}})
		if err != nil {
			t.Fatal(err)
		}
		lift()
		d()
		stop()
		mustRegister(t, r, rawTool("b"), nil)
		want := []string{"0:a", "2:", "3:", "1:a"}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("failing listener rolls registration back", func(t *testing.T) {
		r := New()
		r.OnChange(func(c Change) error {
			if c.Kind == Registered {
				return errors.New("listener says no")
			}
			return nil
		})
		if _, err := r.Register(rawTool("a"), nil); err == nil || err.Error() != "listener says no" {
			t.Fatalf("got %v", err)
		}
		if r.Get("a", nil) != nil || len(r.Schemas(nil)) != 0 {
			t.Errorf("registration was not rolled back")
		}
	})
	t.Run("panicking listener rolls restriction back", func(t *testing.T) {
		r := New()
		mustRegister(t, r, rawTool("a"), nil)
		s := r.NewScope("s", nil)
		r.OnChange(func(c Change) error {
			if c.Kind == Restricted {
				panic("boom")
			}
			return nil
		})
		if _, err := r.Restrict(s, Restriction{Deny: []string{"a"}}); err == nil {
			t.Fatal("restriction succeeded")
		}
		if r.Get("a", s) == nil {
			t.Errorf("restriction was not rolled back")
		}
	})
	t.Run("listener may call back into the registry", func(t *testing.T) {
		r := New()
		var seen int
		r.OnChange(func(Change) error { seen = len(r.Schemas(nil)); return nil })
		mustRegister(t, r, rawTool("a"), nil)
		if seen != 1 {
			t.Errorf("listener saw %d tools, want 1", seen)
		}
	})
}

func TestRegistry_SchemasProjection(t *testing.T) {
	r := New()
	tool := rawTool("a")
	tool.Timeout = time.Second
	tool.IsConcurrencySafe = func(jsonv.Value) bool { return true }
	tool.PresentCall = func(jsonv.Value) card.CallView { return nil }
	mustRegister(t, r, tool, nil)
	mustRegister(t, r, rawTool("b"), nil)
	got := r.Schemas(nil)
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" {
		t.Fatalf("got %v", got)
	}
	wire, err := jsonMarshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"a","description":"tool a","parameters":{"type":"object","properties":{"x":{"type":"string"}}}}`
	if wire != want {
		t.Errorf("model-facing projection leaked host-only fields:\n got  %s\n want %s", wire, want)
	}
}

func TestRegistry_ScopedShadowing(t *testing.T) {
	for _, tc := range []struct {
		name        string
		scopedFirst bool
	}{{"global first", false}, {"scoped first", true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			s := r.NewScope("agent", nil)
			scoped := rawTool("a")
			scoped.Description = "scoped"
			if tc.scopedFirst {
				mustRegister(t, r, scoped, s)
				mustRegister(t, r, rawTool("a"), nil)
			} else {
				mustRegister(t, r, rawTool("a"), nil)
				mustRegister(t, r, scoped, s)
			}
			if got := r.Get("a", s).Description; got != "scoped" {
				t.Errorf("scope sees %q, want the scoped tool", got)
			}
			if got := r.Get("a", nil).Description; got != "tool a" {
				t.Errorf("global view sees %q", got)
			}
			if n := len(r.Schemas(s)); n != 1 {
				t.Errorf("scope has %d schemas, want exactly one entry", n)
			}
		})
	}
	t.Run("scoped tool invisible to other scopes and globally", func(t *testing.T) {
		r := New()
		a, b := r.NewScope("a", nil), r.NewScope("b", nil)
		mustRegister(t, r, rawTool("mine"), a)
		if r.Get("mine", b) != nil || r.Get("mine", nil) != nil {
			t.Errorf("scoped tool leaked")
		}
	})
	t.Run("child inherits ancestors, nearer shadows farther", func(t *testing.T) {
		r := New()
		root := r.NewScope("root", nil)
		mid := r.NewScope("mid", root)
		leaf := r.NewScope("leaf", mid)
		g := rawTool("x")
		mustRegister(t, r, g, nil)
		rx := rawTool("x")
		rx.Description = "root"
		mustRegister(t, r, rx, root)
		mx := rawTool("x")
		mx.Description = "mid"
		mustRegister(t, r, mx, mid)
		mustRegister(t, r, rawTool("only_root"), root)
		if got := r.Get("x", leaf).Description; got != "mid" {
			t.Errorf("leaf sees %q, want mid", got)
		}
		if got := names(r.Visible(leaf)); !slices.Equal(got, []string{"x", "only_root"}) {
			t.Errorf("leaf visible %v", got)
		}
	})
}

func jsonMarshal(v any) (string, error) {
	b, err := jsonMarshalBytes(v)
	return string(b), err
}
