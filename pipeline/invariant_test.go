package pipeline

import (
	"context"
	"fmt"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// invariants records every stage each execution passes through and checks
// the pipeline's ordering contract: pre-execute at most once, execute only
// after pre-execute, post-execute only after pre-execute or execute, exactly
// one final result per execution whose shape is a valid success or failure,
// with a non-empty name and call id, which observers cannot change. Attach
// it with newInvariants; every env of this package's tests carries one.
type invariants struct {
	mu         sync.Mutex
	stages     map[registry.Token][]string
	violations []string
	remove     []func()
}

// newInvariants attaches a checker to p: a global pre-execute listener,
// wrapper, post-execute listener and two observers (the second checks that
// the first's mutations of its copy are invisible). Close detaches it.
func newInvariants(p *Pipeline) *invariants {
	v := &invariants{stages: map[registry.Token][]string{}}
	v.remove = append(v.remove,
		p.OnPreExecute(nil, func(_ context.Context, e registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
			v.record(e, "pre")
			return next()
		}),
		p.WrapExecute(nil, func(ctx context.Context, e registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			v.record(e, "execute")
			return next(ctx), nil
		}),
		p.OnPostExecute(nil, func(_ context.Context, e registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			v.record(e, "post")
			return next()
		}),
		p.OnResult(nil, func(e registry.Execution, r registry.Result) {
			v.record(e, "result")
			v.checkResult(e, r)
			if len(r.Content) > 0 {
				r.Content[0] = card.Text(tampered) // must not reach anyone else
			}
		}),
		p.OnResult(nil, func(e registry.Execution, r registry.Result) {
			v.checkResult(e, r)
			if len(r.Content) > 0 && r.Content[0].TextValue() == tampered {
				v.mu.Lock()
				v.failf("%s: an observer's change reached another observer", e.CallID)
				v.mu.Unlock()
			}
		}),
	)
	return v
}

const tampered = "tampered by an observer"

// Close detaches the checker.
func (v *invariants) Close() {
	for _, r := range v.remove {
		r()
	}
}

func (v *invariants) failf(format string, args ...any) {
	v.violations = append(v.violations, fmt.Sprintf(format, args...))
}

func (v *invariants) record(e registry.Execution, stage string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	seen := v.stages[e.Token]
	has := func(s string) bool {
		for _, x := range seen {
			if x == s {
				return true
			}
		}
		return false
	}
	switch stage {
	case "pre":
		if has("pre") {
			v.failf("%s: pre-execute ran twice", e.CallID)
		}
	case "execute":
		if !has("pre") {
			v.failf("%s: execute before pre-execute", e.CallID)
		}
	case "post":
		if !has("pre") && !has("execute") {
			v.failf("%s: post-execute before pre-execute or execute", e.CallID)
		}
	case "result":
		if has("result") {
			v.failf("%s: more than one final result", e.CallID)
		}
	}
	if has("result") && stage != "result" {
		v.failf("%s: %s after the final result", e.CallID, stage)
	}
	v.stages[e.Token] = append(seen, stage)
}

func (v *invariants) checkResult(e registry.Execution, r registry.Result) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e.Name == "" || e.CallID == "" || e.Token.IsZero() {
		v.failf("result with empty identity: %+v", e)
	}
	if r.IsError {
		if r.Error == nil || r.Value.IsValid() || r.ConcludesTurn {
			v.failf("%s: malformed failure %+v", e.CallID, r)
		}
	} else if r.Error != nil || !r.Value.IsValid() {
		v.failf("%s: malformed success %+v", e.CallID, r)
	}
	if !materialized(r) {
		v.failf("%s: result is not materialized", e.CallID)
	}
}

// Violations returns every broken invariant seen so far.
func (v *invariants) Violations() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.violations...)
}
