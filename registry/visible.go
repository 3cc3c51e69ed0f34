package registry

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Restriction filters the tools a scope inherits (the global layer and its
// ancestors' layers). A nil slice is "not stated"; an empty non-nil Allow
// hides everything inherited.
type Restriction struct {
	Allow []string // inherited names that stay visible; everything else is hidden
	Deny  []string // inherited names that are hidden
}

type restriction struct {
	allow map[string]bool // nil: no allow list
	deny  map[string]bool
}

func (x *restriction) admits(name string) bool {
	if x.allow != nil && !x.allow[name] {
		return false
	}
	return !x.deny[name]
}

// Restrict adds a live filter over the tools scope inherits. Restrictions
// intersect down the chain (an ancestor's applies to every descendant), do
// not affect the scope's own registrations, and apply to tools registered
// later: a deny-only filter lets a later tool through, an allow list hides
// it. The names are copied now. The returned disposer lifts only this
// restriction.
//
// Restrict fails for a nil scope, an empty filter, the reserved run_code
// name, and names that are not currently inherited (listing the known ones).
func (r *Registry) Restrict(scope *Scope, f Restriction) (dispose func(), err error) {
	if scope == nil {
		return nil, invalidDef("tools.restrict() requires a scoped context (agent.ctx): a context-global restriction would mask every agent — deny the tool for the intended agent instead")
	}
	if err := r.checkScope(scope); err != nil {
		return nil, err
	}
	if f.Allow == nil && f.Deny == nil {
		return nil, invalidDef("tools.restrict({}) is a no-op: pass `allow` and/or `deny` (an empty filter is almost always a materialized-empty-config bug)")
	}
	named := append(slices.Clone(f.Allow), f.Deny...)
	if slices.Contains(named, RunCodeName) {
		return nil, invalidDef(`tools.restrict() cannot name reserved Code Mode presentation transport "run_code"; restrict end-capability tools instead`)
	}
	x := &restriction{deny: toSet(f.Deny)}
	if f.Allow != nil {
		x.allow = toSet(f.Allow)
	}
	r.mu.Lock()
	inherited := r.inheritedNames(scope)
	var unknown []string
	for _, n := range named {
		if !inherited[n] && !slices.Contains(unknown, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		r.mu.Unlock()
		return nil, invalidDef(unknownRestrictMessage(unknown, inherited))
	}
	scope.restrictions = append(scope.restrictions, x)
	r.mu.Unlock()

	remove := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		n := len(scope.restrictions)
		scope.restrictions = slices.DeleteFunc(scope.restrictions, func(y *restriction) bool { return y == x })
		return len(scope.restrictions) != n
	}
	if err := r.notify(Change{Kind: Restricted, Scope: scope}); err != nil {
		remove()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if remove() {
				if err := r.notify(Change{Kind: Unrestricted, Scope: scope}); err != nil {
					r.log.Warn("tools/change listener failed on unrestrict", "scope", scope.name, "err", err)
				}
			}
		})
	}, nil
}

func toSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func unknownRestrictMessage(unknown []string, inherited map[string]bool) string {
	quoted := make([]string, len(unknown))
	for i, n := range unknown {
		quoted[i] = strconv.Quote(n)
	}
	known := make([]string, 0, len(inherited))
	for n := range inherited {
		known = append(known, n)
	}
	slices.Sort(known)
	list := strings.Join(known, ", ")
	if list == "" {
		list = "(none)"
	}
	noun := "tool"
	if len(unknown) > 1 {
		noun = "tools"
	}
	return "tools.restrict() names unknown global " + noun + " " + strings.Join(quoted, ", ") + "; known global tools: " + list
}

// Inherited returns the names scope inherits (the global layer's and its
// ancestors'), before any restriction, sorted: the names [Registry.Restrict]
// accepts for it.
func (r *Registry) Inherited(scope *Scope) []string {
	if scope == nil {
		return nil
	}
	r.mu.RLock()
	m := r.inheritedNames(scope)
	r.mu.RUnlock()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// inheritedNames returns the unfiltered names scope inherits. r.mu held.
func (r *Registry) inheritedNames(scope *Scope) map[string]bool {
	m := map[string]bool{}
	for _, n := range r.global.names {
		m[n] = true
	}
	for s := scope.parent; s != nil; s = s.parent {
		for _, n := range s.layer.names {
			m[n] = true
		}
	}
	return m
}

// admitted reports whether every restriction on scope's chain admits an
// inherited name. r.mu held.
func admitted(scope *Scope, name string) bool {
	for s := scope; s != nil; s = s.parent {
		for _, x := range s.restrictions {
			if !x.admits(name) {
				return false
			}
		}
	}
	return true
}

// lookup resolves name as scope sees it. r.mu held.
func (r *Registry) lookup(name string, scope *Scope) *Tool {
	if name == RunCodeName {
		return r.codeTransport(scope)
	}
	if scope != nil {
		if t := scope.layer.byName[name]; t != nil {
			return t
		}
	}
	var t *Tool
	for s := scope.parentOrNil(); s != nil && t == nil; s = s.parent {
		t = s.layer.byName[name]
	}
	if t == nil {
		t = r.global.byName[name]
	}
	if t == nil || !admitted(scope, name) {
		return nil
	}
	return t
}

func (s *Scope) parentOrNil() *Scope {
	if s == nil {
		return nil
	}
	return s.parent
}

// Get returns the definition scope resolves for name (nil scope: the global
// view), or nil when none is visible: a scoped tool shadows inherited ones,
// and a restricted-away inherited tool reads as absent. The returned Tool
// is the registry's copy and must not be modified.
func (r *Registry) Get(name string, scope *Scope) *Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.lookup(name, scope)
}

// Visible returns the tools scope sees, in a stable order: inherited tools
// in registration order (global first, then ancestors farthest first, a
// nearer layer shadowing in place), then the scope's own tools, which are
// never filtered and shadow inherited ones in place.
func (r *Registry) Visible(scope *Scope) []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var order []string
	byName := map[string]*Tool{}
	put := func(l *layer) {
		for _, n := range l.names {
			if _, seen := byName[n]; !seen {
				order = append(order, n)
			}
			byName[n] = l.byName[n]
		}
	}
	put(&r.global)
	var chain []*Scope
	if scope != nil {
		chain = scope.Chain()
		for _, s := range chain[:len(chain)-1] {
			put(&s.layer)
		}
	}
	out := make([]*Tool, 0, len(order))
	own := map[string]bool{}
	if scope != nil {
		for _, n := range scope.layer.names {
			own[n] = true
		}
	}
	for _, n := range order {
		switch {
		case own[n]:
			out = append(out, scope.layer.byName[n])
		case admitted(scope, n):
			out = append(out, byName[n])
		}
	}
	if scope != nil {
		for _, n := range scope.layer.names {
			if _, inherited := byName[n]; !inherited {
				out = append(out, scope.layer.byName[n])
			}
		}
	}
	if rc := r.codeTransport(scope); rc != nil {
		out = append(out, rc)
	}
	return out
}

// Schemas returns the model-facing projection of the tools scope sees:
// name, description and parameters only. Values are immutable, so the
// parameters are safe to hand to any request builder.
func (r *Registry) Schemas(scope *Scope) []ToolSchema {
	tools := r.Visible(scope)
	out := make([]ToolSchema, len(tools))
	for i, t := range tools {
		out[i] = ToolSchema{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	}
	return out
}

// ExecutionMode classifies a pending call through the definition scope would
// execute: Parallel only when the tool is visible, declares a classifier,
// its arguments satisfy its enforced parameter schema (when it has one), and
// the classifier returns true without panicking. Everything else is
// Exclusive.
func (r *Registry) ExecutionMode(name string, args jsonv.Value, scope *Scope) Mode {
	t := r.Get(name, scope)
	if t == nil || t.IsConcurrencySafe == nil || !args.IsValid() {
		return Exclusive
	}
	if t.Args != nil && !t.Args.ValidArgs(args) {
		return Exclusive
	}
	if classify(t.IsConcurrencySafe, args) {
		return Parallel
	}
	return Exclusive
}

func classify(fn func(jsonv.Value) bool, args jsonv.Value) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return fn(args)
}
