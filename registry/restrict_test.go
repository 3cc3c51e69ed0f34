package registry

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func jsonMarshalBytes(v any) ([]byte, error) { return json.Marshal(v) }

func TestRegistry_Restrict(t *testing.T) {
	setup := func(t *testing.T) (*Registry, *Scope) {
		r := New()
		for _, n := range []string{"read", "write", "bash"} {
			mustRegister(t, r, rawTool(n), nil)
		}
		return r, r.NewScope("agent", nil)
	}
	for _, tc := range []struct {
		name string
		f    Restriction
		want []string
	}{
		{"deny hides", Restriction{Deny: []string{"bash"}}, []string{"read", "write"}},
		{"allow keeps only", Restriction{Allow: []string{"read"}}, []string{"read"}},
		{"empty allow hides everything inherited", Restriction{Allow: []string{}}, []string{}},
		{"empty deny hides nothing", Restriction{Deny: []string{}}, []string{"read", "write", "bash"}},
		{"allow and deny combine", Restriction{Allow: []string{"read", "write"}, Deny: []string{"write"}}, []string{"read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, s := setup(t)
			if _, err := r.Restrict(s, tc.f); err != nil {
				t.Fatal(err)
			}
			if got := names(r.Visible(s)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if got := names(r.Visible(nil)); len(got) != 3 {
				t.Errorf("global view changed: %v", got)
			}
		})
	}

	t.Run("restricted tool reads as absent", func(t *testing.T) {
		r, s := setup(t)
		r.Restrict(s, Restriction{Deny: []string{"bash"}})
		if r.Get("bash", s) != nil {
			t.Errorf("Get returned a restricted-away tool")
		}
	})
	t.Run("own registrations are never filtered", func(t *testing.T) {
		r, s := setup(t)
		mustRegister(t, r, rawTool("report"), s)
		r.Restrict(s, Restriction{Allow: []string{}})
		if got := names(r.Visible(s)); !slices.Equal(got, []string{"report"}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("own tool shadowing a denied global stays visible", func(t *testing.T) {
		r, s := setup(t)
		r.Restrict(s, Restriction{Deny: []string{"bash"}})
		own := rawTool("bash")
		own.Description = "own"
		mustRegister(t, r, own, s)
		if got := r.Get("bash", s); got == nil || got.Description != "own" {
			t.Errorf("got %v", got)
		}
	})
	t.Run("restrictions intersect", func(t *testing.T) {
		r, s := setup(t)
		r.Restrict(s, Restriction{Allow: []string{"read", "write"}})
		r.Restrict(s, Restriction{Allow: []string{"write", "bash"}})
		if got := names(r.Visible(s)); !slices.Equal(got, []string{"write"}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("ancestor restriction applies to descendants", func(t *testing.T) {
		r, s := setup(t)
		child := r.NewScope("child", s)
		r.Restrict(s, Restriction{Deny: []string{"write"}})
		if r.Get("write", child) != nil {
			t.Errorf("descendant sees a tool its ancestor denied")
		}
	})
	t.Run("restriction on an ancestor's own tool from a child", func(t *testing.T) {
		r, s := setup(t)
		mustRegister(t, r, rawTool("delegate"), s)
		child := r.NewScope("child", s)
		if _, err := r.Restrict(child, Restriction{Deny: []string{"delegate"}}); err != nil {
			t.Fatal(err)
		}
		if r.Get("delegate", child) != nil || r.Get("delegate", s) == nil {
			t.Errorf("inherited ancestor tool not masked for the child only")
		}
	})
	t.Run("live: deny-only admits later tools, allow list hides them", func(t *testing.T) {
		r, s := setup(t)
		s2 := r.NewScope("other", nil)
		r.Restrict(s, Restriction{Deny: []string{"bash"}})
		r.Restrict(s2, Restriction{Allow: []string{"read"}})
		mustRegister(t, r, rawTool("later"), nil)
		if r.Get("later", s) == nil {
			t.Errorf("deny-only filter hid a later tool")
		}
		if r.Get("later", s2) != nil {
			t.Errorf("allow list admitted a later tool")
		}
	})
	t.Run("names are copied at call time", func(t *testing.T) {
		r, s := setup(t)
		deny := []string{"bash"}
		r.Restrict(s, Restriction{Deny: deny})
		deny[0] = "read"
		if r.Get("read", s) == nil || r.Get("bash", s) != nil {
			t.Errorf("later mutation of the caller's slice changed the filter")
		}
	})
	t.Run("disposer lifts only its restriction", func(t *testing.T) {
		r, s := setup(t)
		lift, _ := r.Restrict(s, Restriction{Deny: []string{"bash"}})
		r.Restrict(s, Restriction{Deny: []string{"write"}})
		lift()
		lift()
		if r.Get("bash", s) == nil || r.Get("write", s) != nil {
			t.Errorf("got bash=%v write=%v", r.Get("bash", s) != nil, r.Get("write", s) != nil)
		}
	})
}

func TestRegistry_RestrictRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scoped bool
		f      Restriction
		tools  []string
		want   string
	}{
		{"unscoped", false, Restriction{Deny: []string{"a"}}, []string{"a"}, "tools.restrict() requires a scoped context (agent.ctx): a context-global restriction would mask every agent — deny the tool for the intended agent instead"},
		{"empty filter", true, Restriction{}, []string{"a"}, "tools.restrict({}) is a no-op: pass `allow` and/or `deny` (an empty filter is almost always a materialized-empty-config bug)"},
		{"run_code", true, Restriction{Allow: []string{"run_code"}}, []string{"a"}, `tools.restrict() cannot name reserved Code Mode presentation transport "run_code"; restrict end-capability tools instead`},
		{"one unknown", true, Restriction{Deny: []string{"x"}}, []string{"b", "a"}, `tools.restrict() names unknown global tool "x"; known global tools: a, b`},
		{"several unknown", true, Restriction{Allow: []string{"x"}, Deny: []string{"y"}}, nil, `tools.restrict() names unknown global tools "x", "y"; known global tools: (none)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			for _, n := range tc.tools {
				mustRegister(t, r, rawTool(n), nil)
			}
			var s *Scope
			if tc.scoped {
				s = r.NewScope("agent", nil)
			}
			_, err := r.Restrict(s, tc.f)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("own-scope name is not inherited", func(t *testing.T) {
		r := New()
		s := r.NewScope("agent", nil)
		mustRegister(t, r, rawTool("mine"), s)
		if _, err := r.Restrict(s, Restriction{Deny: []string{"mine"}}); err == nil || err.Error() != `tools.restrict() names unknown global tool "mine"; known global tools: (none)` {
			t.Errorf("got %v", err)
		}
	})
}

func TestRegistry_PresentAs(t *testing.T) {
	t.Run("refused without Code Mode", func(t *testing.T) {
		r := New(WithDefaultPresentation(Code))
		root := r.NewScope("root", nil)
		for _, mode := range []Presentation{Code, Both} {
			if _, err := r.PresentAs(root, mode); err == nil || !strings.Contains(err.Error(), "needs Code Mode (run_code)") {
				t.Errorf("%s: %v", mode, err)
			}
		}
		if got := r.EffectivePresentation(root); got != Native {
			t.Errorf("a code default without Code Mode gives %q", got)
		}
		if undo, err := r.PresentAs(root, Native); err != nil {
			t.Errorf("native: %v", err)
		} else {
			undo()
		}
	})
	r := New(WithDefaultPresentation(Native), WithCodeMode())
	root := r.NewScope("root", nil)
	child := r.NewScope("child", root)
	if _, err := r.PresentAs(nil, Code); err == nil || err.Error() != "tools.presentAs() requires a scoped context (agent.ctx): a context-global presentation is the `mode` config field on the tools row" {
		t.Errorf("unscoped: %v", err)
	}
	if _, err := r.PresentAs(root, "weird"); err == nil {
		t.Errorf("unknown mode accepted")
	}
	undo, err := r.PresentAs(root, Code)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.PresentAs(root, Both); err == nil || err.Error() != `tools.presentAs("both") conflicts with "code" already declared for this scope; one composition selects one presentation` {
		t.Errorf("second declaration: %v", err)
	}
	if got := r.EffectivePresentation(child); got != Code {
		t.Errorf("child inherits %q, want code", got)
	}
	r.PresentAs(child, Both)
	if got := r.EffectivePresentation(child); got != Both {
		t.Errorf("nearest declaration: got %q", got)
	}
	undo()
	if got := r.EffectivePresentation(root); got != Native {
		t.Errorf("after dispose: got %q, want default", got)
	}
	if got := New(WithDefaultPresentation(Both), WithCodeMode()).EffectivePresentation(nil); got != Both {
		t.Errorf("configured default: got %q", got)
	}
}

func TestRegistry_ExecutionMode(t *testing.T) {
	typed := defineEdit(t) // parallel only for file_path "/safe"
	for _, tc := range []struct {
		name  string
		setup func(*Tool)
		tool  *Tool
		call  string
		args  string
		want  Mode
	}{
		{"exact true is parallel", func(t *Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } }, nil, "t", `{}`, Parallel},
		{"false is exclusive", func(t *Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return false } }, nil, "t", `{}`, Exclusive},
		{"missing classifier is exclusive", func(*Tool) {}, nil, "t", `{}`, Exclusive},
		{"panicking classifier is exclusive", func(t *Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { panic("no") } }, nil, "t", `{}`, Exclusive},
		{"unknown tool is exclusive", func(t *Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } }, nil, "missing", `{}`, Exclusive},
		{"absent arguments are exclusive", func(t *Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } }, nil, "t", ``, Exclusive},
		{"typed valid safe args", nil, typed, "edit", `{"file_path":"/safe","old_string":"a","new_string":"b"}`, Parallel},
		{"typed invalid args are exclusive", nil, typed, "edit", `{"file_path":"/safe"}`, Exclusive},
		{"typed valid unsafe args", nil, typed, "edit", `{"file_path":"/x","old_string":"a","new_string":"b"}`, Exclusive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			tool := tc.tool
			if tool == nil {
				tool = rawTool("t")
				tc.setup(tool)
			}
			mustRegister(t, r, tool, nil)
			var args jsonv.Value
			if tc.args != "" {
				args = jsonv.MustParse(tc.args)
			}
			if got := r.ExecutionMode(tc.call, args, nil); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("hidden tool is exclusive", func(t *testing.T) {
		r := New()
		tool := rawTool("t")
		tool.IsConcurrencySafe = func(jsonv.Value) bool { return true }
		mustRegister(t, r, tool, nil)
		s := r.NewScope("s", nil)
		r.Restrict(s, Restriction{Deny: []string{"t"}})
		if got := r.ExecutionMode("t", jsonv.MustParse(`{}`), s); got != Exclusive {
			t.Errorf("got %v", got)
		}
	})
}

func TestRegistry_ConcurrentUse(t *testing.T) {
	r := New()
	root := r.NewScope("root", nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			s := r.NewScope("s", root)
			for j := range 50 {
				name := "t" + string(rune('a'+i)) + string(rune('a'+j%26))
				d, err := r.Register(rawTool(name), s)
				if err != nil {
					t.Error(err)
					return
				}
				_ = r.Schemas(s)
				_ = r.Get(name, s)
				_ = r.ExecutionMode(name, jsonv.MustParse(`{}`), s)
				d()
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			d, err := r.Register(rawTool("shared"), nil)
			if err == nil {
				lift, _ := r.Restrict(root, Restriction{Deny: []string{"shared"}})
				if lift != nil {
					lift()
				}
				d()
			}
		}
	})
	wg.Wait()
	if n := len(r.Schemas(nil)); n != 0 {
		t.Errorf("%d tools left after every disposer ran", n)
	}
}
