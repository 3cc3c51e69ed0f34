package pipeline

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// safeDispatch is dispatch with a last line of defence: a panic outside
// the parts that are already protected (a bug of ours) ends the call final
// with an internal error instead of killing the process, which would lose
// every session's work.
func (r *run) safeDispatch() {
	if err := protect(func() error { r.dispatch(); return nil }); err != nil {
		r.final(fromError(err))
	}
}

// dispatch runs the tools/execute waterfall around the body and normalizes
// what it returns. Only this stage may overlap with other calls' stages.
func (r *run) dispatch() {
	wrappers := matching(r.p, &r.p.wrappers, r.exec.Scope)
	var minted registry.Result
	var haveMinted bool
	var wrapperErr error // the first wrapper failure: the call ends final
	var step func(i int, ctx context.Context) registry.Result
	step = func(i int, ctx context.Context) registry.Result {
		if i == len(wrappers) {
			res := r.body(ctx)
			minted, haveMinted = res, true
			return res.Clone()
		}
		var res registry.Result
		err := protect(func() (err error) {
			res, err = wrappers[i](ctx, r.exec, func(next context.Context) registry.Result {
				if next == nil {
					next = ctx
				}
				return step(i+1, next)
			})
			return err
		})
		if err != nil {
			if wrapperErr == nil {
				wrapperErr = err
			}
			return fromError(err) // what an enclosing wrapper sees
		}
		return r.normalize(res, minted, haveMinted)
	}
	ctx := r.ctx
	if r.data != nil {
		ctx = context.WithValue(ctx, dataKey{}, r.data)
	}
	if r.grant != nil {
		ctx = context.WithValue(ctx, grantKey{}, r.grant)
	}
	res := step(0, ctx)
	if wrapperErr != nil {
		r.final(fromError(wrapperErr))
		return
	}
	r.mu.Lock()
	deferred, invoked := r.deferred, r.bodyInvoked
	r.mu.Unlock()
	res = withContexts(res, deferred)
	if r.ctx.Err() != nil && !res.IsError {
		res = keepContexts(abortedFor(invoked), res)
	}
	r.post(res)
}

type dataKey struct{}

// DecisionData returns the Data of the pre-execute decision that allowed
// the call ctx runs (nil when none was given). A wrapper's and the body's
// context carry it, unless a wrapper replaces its context with one not
// derived from the context it received.
func DecisionData(ctx context.Context) any { return ctx.Value(dataKey{}) }

type grantKey struct{}

// ApprovalGrant returns what the approval of the call ctx runs granted
// ([Approval].Grant; nil when the call was not asked about or was granted
// as asked), carried as [DecisionData] is.
func ApprovalGrant(ctx context.Context) any { return ctx.Value(grantKey{}) }

func abortedFor(bodyInvoked bool) registry.Result {
	if bodyInvoked {
		return aborted()
	}
	return abortedBeforeDispatch()
}

// body is the base of the waterfall: fuse the caller's cancellation into the
// wrapper's context, re-resolve the tool, run it, and build the canonical
// result.
func (r *run) body(wctx context.Context) registry.Result {
	fused, cancel := context.WithCancelCause(wctx)
	defer cancel(nil)
	stop := context.AfterFunc(r.ctx, func() { cancel(context.Cause(r.ctx)) })
	defer stop()
	// AfterFunc fuses asynchronously: check the caller's context itself,
	// so an abort that came while a wrapper awaited is never missed.
	if r.ctx.Err() != nil || fused.Err() != nil {
		return abortedBeforeDispatch()
	}
	tool := r.p.reg.Get(r.exec.Name, r.exec.Scope)
	if tool == nil {
		return fromError(registry.UnknownToolError(r.exec.Name))
	}
	r.mu.Lock()
	r.bodyInvoked = true
	r.mu.Unlock()
	var value jsonv.Value
	err := protect(func() (err error) {
		value, err = tool.Execute(fused, r.exec.Arguments, r)
		return err
	})
	if err != nil {
		if isCancellation(fused, err) {
			return aborted()
		}
		return fromError(err)
	}
	res := buildSuccess(tool, r.exec.Arguments, value, r.exec.Parent.IsZero())
	if res.IsError {
		return res
	}
	r.mu.Lock()
	res.ConcludesTurn = r.concluded
	r.mu.Unlock()
	if fused.Err() != nil {
		return aborted()
	}
	return res
}

// normalize reshapes what a wrapper returned: the pipeline's own success
// stays; another success counts only through its value, re-validated and
// re-rendered by the owning tool (its contexts kept); a failure keeps its
// error, content, meta and contexts.
func (r *run) normalize(res, minted registry.Result, haveMinted bool) registry.Result {
	if res.IsError {
		out := registry.Result{IsError: true, Meta: res.Meta, Content: res.Content, AdditionalContexts: res.AdditionalContexts}
		if res.Error != nil {
			out.Error = &registry.Failure{Message: res.Error.Message, Info: res.Error.Info}
		} else {
			out.Error = &registry.Failure{Message: blockMessage(res.Content)}
		}
		if len(out.Content) == 0 {
			out.Content = failed(out.Error.Message, nil).Content
		}
		return out.Clone()
	}
	if haveMinted && !minted.IsError && minted.Value.Same(res.Value) {
		out := minted.Clone()
		out.AdditionalContexts = res.Clone().AdditionalContexts
		return out
	}
	tool := r.p.reg.Get(r.exec.Name, r.exec.Scope)
	if tool == nil {
		return keepContexts(fromError(registry.UnknownToolError(r.exec.Name)), res.Clone())
	}
	out := buildSuccess(tool, r.exec.Arguments, res.Value, r.exec.Parent.IsZero())
	if !out.IsError {
		out.ConcludesTurn = res.ConcludesTurn
	}
	return keepContexts(out, res.Clone())
}
