package registry

import (
	"errors"
	"slices"
)

// ErrScopeDisposed is returned for registrations on a disposed scope.
var ErrScopeDisposed = errors.New("registry: the scope is disposed")

// Dispose removes everything registered on the scope: its tools (each
// reported as Unregistered to the change listeners, whose failures are
// contained here: disposal cannot be rolled back), its restrictions, its
// presentation, and whatever was tied to it with OnDispose (for example a
// pipeline's listeners on it). Registering on a disposed scope fails with
// ErrScopeDisposed. Child scopes are not disposed. Calling Dispose again
// does nothing.
func (s *Scope) Dispose() {
	r := s.reg
	r.mu.Lock()
	if s.disposed {
		r.mu.Unlock()
		return
	}
	s.disposed = true
	names := s.layer.names
	s.layer = layer{}
	s.restrictions, s.mode = nil, ""
	hooks := s.onDispose
	s.onDispose = nil
	r.mu.Unlock()
	for _, n := range names {
		if err := r.notify(Change{Kind: Unregistered, Name: n, Scope: s}); err != nil {
			r.log.Warn("a tools/change listener failed while a scope was disposed", "scope", s.name, "tool", n, "err", err)
		}
	}
	for i := len(hooks) - 1; i >= 0; i-- {
		(*hooks[i])()
	}
}

// OnDispose ties fn to the scope: it runs once, when the scope is
// disposed (at once if it already is). The returned func unties it.
func (s *Scope) OnDispose(fn func()) (untie func()) {
	r := s.reg
	r.mu.Lock()
	if s.disposed {
		r.mu.Unlock()
		fn()
		return func() {}
	}
	entry := &fn
	s.onDispose = append(s.onDispose, entry)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		s.onDispose = slices.DeleteFunc(s.onDispose, func(e *func()) bool { return e == entry })
	}
}

// Disposed reports whether the scope has been disposed.
func (s *Scope) Disposed() bool {
	s.reg.mu.RLock()
	defer s.reg.mu.RUnlock()
	return s.disposed
}
