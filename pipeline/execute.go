package pipeline

import (
	"bytes"
	"context"
	"strconv"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Execute runs one call through every stage and returns its result. It
// never fails with a Go error: whatever a tool or policy does becomes a
// success or failure result. Cancelling ctx before the body starts gives
// ABORTED_BEFORE_DISPATCH; a success overtaken by cancellation becomes
// ABORTED; a started body is always awaited.
func (p *Pipeline) Execute(ctx context.Context, call Call) registry.Result {
	r := p.prepare(ctx, call, nil)
	if r.stage == stageDispatch {
		r.safeDispatch()
	}
	return r.finalize()
}

type stage uint8

const (
	stageDispatch stage = iota // allowed: dispatch next
	stagePost                  // a result that still goes through post-execute
	stageFinal                 // a final result: straight to finish
)

// run is one call's state across its stages. Stages run one at a time
// (prepare, then dispatch, then finalize), possibly on different goroutines,
// with happens-before edges between them.
type run struct {
	p         *Pipeline
	ctx       context.Context // the caller's
	exec      registry.Execution
	finalizer func(registry.Execution, registry.Result) ([]card.Content, bool)

	stage  stage
	result registry.Result
	data   any // the allowing pre-execute decision's Data
	grant  any // what the approval granted (Approval.Grant)

	// Written by the body through the RunContext; read after it returns.
	mu          sync.Mutex
	deferred    []registry.ContextMessage
	concluded   bool
	bodyInvoked bool
}

var emptyObject = jsonv.MustParse(`{}`)

// parseArgs materializes raw model arguments; blank means {}.
func parseArgs(raw []byte) (jsonv.Value, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return emptyObject, true
	}
	v, err := jsonv.Parse(raw)
	return v, err == nil
}

// prepare runs the stages up to dispatch: materialization, the pre-execute
// waterfall, approval and guards. onState, when set, hears about a pending
// approval.
func (p *Pipeline) prepare(ctx context.Context, call Call, onState func(State)) *run {
	r := &run{p: p, ctx: ctx}
	tool := p.reg.Get(call.Name, call.Scope)
	if tool != nil {
		r.finalizer = tool.FinalizeContent // captured before anything else runs
	}
	root := call.RootCallID
	if root == "" {
		root = call.CallID
	}
	r.exec = registry.Execution{CallID: call.CallID, RootCallID: root, Name: call.Name, Scope: call.Scope, Parent: call.Parent, Token: registry.NewToken()}
	// Code Mode's collapse: a model-direct call of a tool its scope sees
	// only through run_code is refused before anything else runs.
	if call.Parent.IsZero() {
		if e := p.reg.Collapsed(call.Name, call.Scope); e != nil {
			return r.final(fromError(e))
		}
	}

	args := call.Args
	if !args.IsValid() {
		v, ok := parseArgs(call.Arguments)
		if !ok {
			return r.final(failed(msgArgsNotLossless, nil))
		}
		args = v
	}
	r.exec.Arguments = args
	// Deliberate difference from the reference: enforced parameter schemas
	// are checked before any policy, so nobody is asked to approve a call
	// that cannot run.
	if tool != nil && tool.Args != nil {
		if v := tool.Args.Validate(args, ""); v != nil {
			return r.final(fromError(registry.ArgsError(v)))
		}
	}
	if ctx.Err() != nil {
		return r.final(abortedBeforeDispatch())
	}

	decision, err := r.preWaterfall()
	if err != nil {
		return r.final(fromError(err))
	}
	if decision.Kind == Ask {
		if onState != nil {
			onState(AwaitingApproval)
		}
		var cancelled bool
		decision, cancelled, err = r.resolveAsk(decision)
		if err != nil {
			return r.final(fromError(err))
		}
		if cancelled && ctx.Err() != nil {
			return r.post(abortedBeforeDispatch())
		}
	}
	if decision.Kind == Deny {
		return r.post(failed(decision.Reason, nil))
	}
	reason, err := r.guards()
	if err != nil {
		return r.final(fromError(err))
	}
	if reason != "" {
		return r.post(failed(reason, nil))
	}
	if ctx.Err() != nil {
		return r.post(abortedBeforeDispatch())
	}
	r.data = decision.Data
	r.stage = stageDispatch
	return r
}

func (r *run) final(res registry.Result) *run { r.stage, r.result = stageFinal, res; return r }
func (r *run) post(res registry.Result) *run  { r.stage, r.result = stagePost, res; return r }

func (r *run) preWaterfall() (PreDecision, error) {
	listeners := matching(r.p, &r.p.pre, r.exec.Scope)
	var step func(i int) (PreDecision, error)
	step = func(i int) (d PreDecision, err error) {
		if i == len(listeners) {
			return AllowCall(), nil
		}
		err = protect(func() (err error) {
			d, err = listeners[i](r.ctx, r.exec, func() (PreDecision, error) { return step(i + 1) })
			return err
		})
		return d, err
	}
	return step(0)
}

// resolveAsk turns an ask into allow (keeping the ask's Data) or deny
// through the approver.
func (r *run) resolveAsk(ask PreDecision) (d PreDecision, cancelled bool, err error) {
	name, reason := r.exec.Name, ask.Reason
	if r.p.approver == nil {
		if reason == "" {
			reason = `tool "` + name + `" requires approval (not yet supported)`
		}
		return DenyCall(reason), false, nil
	}
	if r.exec.Scope == nil {
		return DenyCall(`tool "` + name + `" requires approval, but the call has no agent to route it through`), false, nil
	}
	var answer Approval
	err = protect(func() error {
		req := ApprovalRequest{Exec: r.exec, ToolName: name, CallID: r.exec.CallID, Reason: reason, Data: ask.Data}
		if d, ok := r.p.approver.(DetailedApprover); ok {
			answer = d.RequestApprovalDetail(r.ctx, req)
		} else {
			answer.Outcome = r.p.approver.RequestApproval(r.ctx, req)
		}
		return nil
	})
	if err != nil {
		answer = Approval{Outcome: Unavailable} // a failing approval channel is no channel
	}
	outcome := answer.Outcome
	switch outcome {
	case AllowedOnce:
		r.grant = answer.Grant
		return PreDecision{Kind: Allow, Data: ask.Data}, false, nil
	case Rejected:
		if answer.Reason != "" {
			return DenyCall(answer.Reason), false, nil
		}
		return DenyCall(`the user rejected tool "` + name + `"`), false, nil
	case Cancelled:
		return DenyCall(`approval for tool "` + name + `" was cancelled`), true, nil
	case Unavailable:
		return DenyCall(`tool "` + name + `" requires approval, but no approval channel is available`), false, nil
	}
	return PreDecision{}, false, errUnreachable(outcome)
}

type errUnreachable ApprovalOutcome

func (e errUnreachable) Error() string {
	return "unreachable: unknown approval outcome " + strconv.Itoa(int(e))
}

// guards evaluates global guards, then the scope chain's from farthest to
// nearest, iterating live: a guard added during the pass also runs.
func (r *run) guards() (string, error) {
	var chain []*registry.Scope
	if r.exec.Scope != nil {
		chain = r.exec.Scope.Chain()
	}
	levels := append([]*registry.Scope{nil}, chain...)
	for _, level := range levels {
		for i := 0; ; i++ {
			g, ok := r.p.guardAt(level, i)
			if !ok {
				break
			}
			var reason string
			if err := protect(func() error { reason = g(r.exec); return nil }); err != nil {
				return "", err
			}
			if reason != "" {
				return reason, nil
			}
		}
	}
	return "", nil
}

// guardAt returns the i-th guard registered for exactly level (nil: global).
func (p *Pipeline) guardAt(level *registry.Scope, i int) (Guard, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, e := range p.guards {
		if e.scope == level {
			if i == 0 {
				return e.fn, true
			}
			i--
		}
	}
	return nil, false
}

// Execution, DeferContext and ConcludeTurn implement registry.RunContext.
func (r *run) Execution() registry.Execution { return r.exec }

func (r *run) DeferContext(m registry.ContextMessage) {
	r.mu.Lock()
	r.deferred = append(r.deferred, m)
	r.mu.Unlock()
}

func (r *run) ConcludeTurn() {
	r.mu.Lock()
	r.concluded = true
	r.mu.Unlock()
}
