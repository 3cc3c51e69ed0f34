package registry

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
)

// Registry holds tool definitions in a global layer plus one layer per agent
// scope. It is safe for concurrent use. Listeners are never called with the
// registry's lock held, so they may call back into it.
type Registry struct {
	mu          sync.RWMutex
	global      layer
	listeners   []*changeListener
	defaultMode Presentation
	codeMode    bool  // a Code Mode runtime (run_code) is declared
	runCode     *Tool // the installed run_code transport (InstallCodeMode)
	log         *slog.Logger
}

// Scope is an agent scope: a node in a parent chain that owns its own layer
// of tools, restrictions and presentation mode. Create scopes with
// [Registry.NewScope]; a nil *Scope means the global view.
type Scope struct {
	reg    *Registry
	parent *Scope
	name   string

	// guarded by reg.mu
	layer        layer
	restrictions []*restriction
	mode         Presentation
	disposed     bool
	onDispose    []*func()
}

type layer struct {
	names  []string // registration order
	byName map[string]*Tool
}

func (l *layer) add(t *Tool) {
	if l.byName == nil {
		l.byName = map[string]*Tool{}
	}
	l.byName[t.Name] = t
	l.names = append(l.names, t.Name)
}

// remove deletes t if it is still the entry under its name.
func (l *layer) remove(t *Tool) bool {
	if l.byName[t.Name] != t {
		return false
	}
	delete(l.byName, t.Name)
	l.names = slices.DeleteFunc(l.names, func(n string) bool { return n == t.Name })
	return true
}

// Option configures a Registry.
type Option func(*Registry)

// WithDefaultPresentation sets the presentation of scopes that declare none
// (default Native). Code and Both need WithCodeMode; without it they fall
// back to Native.
func WithDefaultPresentation(p Presentation) Option {
	return func(r *Registry) { r.defaultMode = p }
}

// WithCodeMode declares that a Code Mode runtime (run_code) is installed,
// which the Code and Both presentations need.
func WithCodeMode() Option { return func(r *Registry) { r.codeMode = true } }

// New returns an empty registry.
func New(opts ...Option) *Registry {
	r := &Registry{defaultMode: Native, log: slog.Default()}
	for _, o := range opts {
		o(r)
	}
	if !r.codeMode {
		r.defaultMode = Native
	}
	return r
}

// NewScope returns a new agent scope under parent (nil: a root scope under
// the global layer). name is for diagnostics.
func (r *Registry) NewScope(name string, parent *Scope) *Scope {
	if parent != nil && parent.reg != r {
		panic("registry: parent scope belongs to another registry")
	}
	return &Scope{reg: r, parent: parent, name: name}
}

// Name returns the scope's diagnostic name.
func (s *Scope) Name() string { return s.name }

// Parent returns the enclosing scope, or nil.
func (s *Scope) Parent() *Scope { return s.parent }

// Chain returns the scope chain from the farthest ancestor to s.
func (s *Scope) Chain() []*Scope {
	var chain []*Scope
	for c := s; c != nil; c = c.parent {
		chain = append(chain, c)
	}
	slices.Reverse(chain)
	return chain
}

// ChangeKind says what changed in a [Change].
type ChangeKind uint8

// Change kinds.
const (
	Registered ChangeKind = iota
	Unregistered
	Restricted
	Unrestricted
)

// Change describes one change of the available tool set (the seed's
// tools/change). Scope is nil for the global layer.
type Change struct {
	Kind  ChangeKind
	Name  string // the tool, for Registered and Unregistered
	Scope *Scope
}

type changeListener struct{ fn func(Change) error }

// OnChange adds a listener for every change of the available tool set, in
// every scope (the notification is deliberately unfiltered). A listener that
// returns an error or panics on a registration or restriction rolls that
// change back and makes it fail; failures on removals are logged. The
// returned function removes the listener; it is idempotent.
func (r *Registry) OnChange(fn func(Change) error) (remove func()) {
	l := &changeListener{fn: fn}
	r.mu.Lock()
	r.listeners = append(r.listeners, l)
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.listeners = slices.DeleteFunc(r.listeners, func(x *changeListener) bool { return x == l })
			r.mu.Unlock()
		})
	}
}

// notify calls every listener; it returns the first failure.
func (r *Registry) notify(c Change) error {
	r.mu.RLock()
	ls := slices.Clone(r.listeners)
	r.mu.RUnlock()
	for _, l := range ls {
		if err := callListener(l.fn, c); err != nil {
			return err
		}
	}
	return nil
}

func callListener(fn func(Change) error, c Change) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tools/change listener panicked: %v", p)
		}
	}()
	return fn(c)
}

// IsName reports whether s is 1 to maxLen characters of [A-Za-z0-9_-]: the
// alphabet of tool names (at most 64) and session ids. A plain loop: a
// regexp with {1,n} compiles n copies of its class, at every process start.
func IsName(s string, maxLen int) bool {
	if len(s) == 0 || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Register files t into scope's layer (nil: the global layer) and returns
// the exact disposer that removes this registration: calling it again, or
// after the name was re-registered by someone else, does nothing.
//
// Register rejects a reserved or malformed name, a duplicate within the
// layer, a missing output contract or Execute, an output schema outside
// the enforced subset (UNSUPPORTED_SCHEMA), a negative timeout, and any
// registration a change listener fails (which is rolled back). The registry
// keeps a copy of *t.
func (r *Registry) Register(t *Tool, scope *Scope) (dispose func(), err error) {
	if err := r.checkScope(scope); err != nil {
		return nil, err
	}
	e, err := prepareTool(t)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	l := &r.global
	if scope != nil {
		l = &scope.layer
	}
	if _, dup := l.byName[e.Name]; dup {
		r.mu.Unlock()
		if scope == nil {
			return nil, invalidDef(`tool "` + e.Name + "\" is already registered (for a per-agent variant, register through that agent's `agent.ctx` instead)")
		}
		return nil, invalidDef(`tool "` + e.Name + `" is already registered in this scope`)
	}
	l.add(e)
	r.mu.Unlock()

	remove := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return l.remove(e)
	}
	if err := r.notify(Change{Kind: Registered, Name: e.Name, Scope: scope}); err != nil {
		remove()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			if remove() {
				if err := r.notify(Change{Kind: Unregistered, Name: e.Name, Scope: scope}); err != nil {
					r.log.Warn("tools/change listener failed on unregister", "tool", e.Name, "err", err)
				}
			}
		})
	}, nil
}

func (r *Registry) checkScope(scope *Scope) error {
	if scope != nil && scope.reg != r {
		return invalidDef("registry: scope belongs to another registry")
	}
	if scope != nil && scope.Disposed() {
		return ErrScopeDisposed
	}
	return nil
}

// prepareTool validates a definition and returns the registry's copy;
// run_code is reserved (InstallCodeMode compiles it).
func prepareTool(t *Tool) (*Tool, error) {
	if t != nil && t.Name == RunCodeName {
		return nil, invalidDef(`tool name "run_code" is reserved for the Code Mode presentation transport and cannot be registered or shadowed`)
	}
	return compileTool(t)
}

// compileTool validates a definition and returns the registry's copy.
func compileTool(t *Tool) (*Tool, error) {
	if t == nil {
		return nil, invalidDef("registry: nil tool definition")
	}
	if !IsName(t.Name, 64) {
		return nil, invalidDef(fmt.Sprintf("tool name %q must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -", t.Name))
	}
	if !t.Output.Schema.IsValid() || t.Output.Render == nil {
		return nil, invalidDef(`tool "` + t.Name + `" must declare output { schema, render, presentationMeta? }`)
	}
	if t.Execute == nil {
		return nil, invalidDef(`tool "` + t.Name + `" must declare execute`)
	}
	if !t.Parameters.IsValid() {
		return nil, invalidDef(`tool "` + t.Name + `" must declare parameters (a JSON Schema object)`)
	}
	if t.Timeout < 0 {
		return nil, invalidDef(`tool "` + t.Name + `" timeoutMs must be a positive finite number`)
	}
	out := t.out
	if out == nil || !out.raw.Same(t.Output.Schema) {
		var err error
		if out, err = CompileSchema(t.Output.Schema); err != nil {
			return nil, err
		}
	}
	e := *t
	e.out = out
	return &e, nil
}

// PresentAs declares scope's presentation mode. Only scoped calls may
// declare, once per scope; the nearest declaration on a chain wins. The
// returned disposer restores the default.
func (r *Registry) PresentAs(scope *Scope, mode Presentation) (dispose func(), err error) {
	if scope == nil {
		return nil, invalidDef("tools.presentAs() requires a scoped context (agent.ctx): a context-global presentation is the `mode` config field on the tools row")
	}
	if err := r.checkScope(scope); err != nil {
		return nil, err
	}
	if mode != Native && mode != Code && mode != Both {
		return nil, invalidDef(fmt.Sprintf("tools presentation mode must be native, code, or both (got %q)", mode))
	}
	if mode != Native && !r.codeMode {
		return nil, invalidDef(fmt.Sprintf("tools presentation mode %q needs Code Mode (run_code), which this registry does not have", mode))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if scope.mode != "" {
		return nil, invalidDef(fmt.Sprintf(`tools.presentAs(%q) conflicts with %q already declared for this scope; one composition selects one presentation`, mode, scope.mode))
	}
	scope.mode = mode
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			scope.mode = ""
			r.mu.Unlock()
		})
	}, nil
}

// EffectivePresentation returns the presentation of scope: the nearest
// declaration on its chain, or the registry default.
func (r *Registry) EffectivePresentation(scope *Scope) Presentation {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.effective(scope)
}
