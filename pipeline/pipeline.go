package pipeline

import (
	"log/slog"
	"slices"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Pipeline executes tool calls through the registry's definitions and the
// registered policy listeners. It is safe for concurrent use; listeners may
// be added and removed while calls run (a call sees the listeners present
// when its stage starts, except guards, which are iterated live).
type Pipeline struct {
	reg       *registry.Registry
	approver  Approver
	log       *slog.Logger
	admission *Admission // nil: every body runs at once

	mu        sync.RWMutex
	pre       []*entry[PreListener]
	guards    []*entry[Guard]
	wrappers  []*entry[Wrapper]
	post      []*entry[PostListener]
	observers []*entry[Observer]
}

// entry is one registered listener; scope nil means global.
type entry[T any] struct {
	scope *registry.Scope
	fn    T
}

// Option configures a Pipeline.
type Option func(*Pipeline)

// WithApprover sets the service that resolves ask decisions. Without one,
// every ask is denied without asking.
func WithApprover(a Approver) Option { return func(p *Pipeline) { p.approver = a } }

// WithAdmission bounds the tool bodies running at once across everything
// the pipeline executes: every ExecuteBatch and every Lane (so run_code's
// sub-calls count too). A call is Running only once admitted.
func WithAdmission(a *Admission) Option { return func(p *Pipeline) { p.admission = a } }

// WithLogger sets the logger for contained observer failures.
func WithLogger(l *slog.Logger) Option { return func(p *Pipeline) { p.log = l } }

// New returns a pipeline over reg.
func New(reg *registry.Registry, opts ...Option) *Pipeline {
	p := &Pipeline{reg: reg, log: slog.Default()}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Registry returns the registry the pipeline executes from.
func (p *Pipeline) Registry() *registry.Registry { return p.reg }

// add registers a listener. Listener lists are copy-on-write: a list is
// never modified once published, so a snapshot taken under the lock stays
// whole while listeners come and go.
func add[T any](p *Pipeline, list *[]*entry[T], scope *registry.Scope, fn T) (remove func()) {
	drop := addEntry(p, list, scope, fn)
	if scope == nil {
		return drop
	}
	// A listener registered on a scope goes when the scope does.
	untie := scope.OnDispose(drop)
	return func() { untie(); drop() }
}

func addEntry[T any](p *Pipeline, list *[]*entry[T], scope *registry.Scope, fn T) (remove func()) {
	e := &entry[T]{scope: scope, fn: fn}
	p.mu.Lock()
	*list = append(slices.Clip(*list), e)
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			*list = slices.DeleteFunc(slices.Clone(*list), func(x *entry[T]) bool { return x == e })
			p.mu.Unlock()
		})
	}
}

// OnPreExecute adds a pre-execute listener. A global one (scope nil) sees
// every call; a scoped one sees only calls made by exactly that scope, and
// never agent-less calls. Listeners run in registration order.
func (p *Pipeline) OnPreExecute(scope *registry.Scope, l PreListener) (remove func()) {
	return add(p, &p.pre, scope, l)
}

// AddGuard adds a guard. Guards run after the pre-execute waterfall: global
// ones first, then those of the call's scope chain from the farthest
// ancestor to the call's own scope. A guard added while guards run is
// evaluated in the same pass.
func (p *Pipeline) AddGuard(scope *registry.Scope, g Guard) (remove func()) {
	return add(p, &p.guards, scope, g)
}

// WrapExecute adds an around-dispatch wrapper; the first added is the
// outermost. Scoping is as for OnPreExecute.
func (p *Pipeline) WrapExecute(scope *registry.Scope, w Wrapper) (remove func()) {
	return add(p, &p.wrappers, scope, w)
}

// OnPostExecute adds a post-execute listener. Scoping is as for
// OnPreExecute.
func (p *Pipeline) OnPostExecute(scope *registry.Scope, l PostListener) (remove func()) {
	return add(p, &p.post, scope, l)
}

// OnResult adds a result observer. A global one sees every call; a scoped
// one only that scope's calls.
func (p *Pipeline) OnResult(scope *registry.Scope, o Observer) (remove func()) {
	return add(p, &p.observers, scope, o)
}

// matching returns the listeners that see a call from scope, in order,
// from the list as it is now (read under the lock): the global ones and
// those of scope and of its ancestors. Events flow up the scope chain,
// never down: a parent's listener sees its children's calls, a child's
// never sees its parent's.
func matching[T any](p *Pipeline, list *[]*entry[T], scope *registry.Scope) []T {
	p.mu.RLock()
	snapshot := *list
	p.mu.RUnlock()
	var out []T
	for _, e := range snapshot {
		if e.scope == nil || inChain(scope, e.scope) {
			out = append(out, e.fn)
		}
	}
	return out
}

// inChain reports whether level is scope or one of its ancestors.
func inChain(scope, level *registry.Scope) bool {
	for s := scope; s != nil; s = s.Parent() {
		if s == level {
			return true
		}
	}
	return false
}
