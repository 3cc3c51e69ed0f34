package pipeline

import (
	"errors"

	"github.com/dsh-bridge/dsh-bridge/jsonv"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

var (
	errReplaceFailedValue = errors.New("tools/post-execute cannot replace the value of a failed result")
	errReplaceBoth        = errors.New("tools/post-execute accept decision cannot replace both value and content")
)

// finalize runs post-execute (for post results) and finish, and returns
// the caller's copy of the result. It must be called exactly once.
func (r *run) finalize() registry.Result {
	if r.stage != stageFinal {
		r.result = r.postWaterfall(r.result)
	}
	return r.finish(r.result)
}

func (r *run) postWaterfall(res registry.Result) registry.Result {
	listeners := matching(r.p, &r.p.post, r.exec.Scope)
	var step func(i int) (PostDecision, error)
	step = func(i int) (d PostDecision, err error) {
		if i == len(listeners) {
			return Accept(), nil
		}
		err = protect(func() (err error) {
			d, err = listeners[i](r.ctx, r.exec, res.Clone(), func() (PostDecision, error) { return step(i + 1) })
			return err
		})
		return d, err
	}
	d, err := step(0)
	if err != nil {
		return fromError(err)
	}
	out, err := r.apply(res, d)
	if err != nil {
		return fromError(err)
	}
	if r.ctx.Err() != nil && !out.IsError {
		r.mu.Lock()
		invoked := r.bodyInvoked
		r.mu.Unlock()
		out = keepContexts(abortedFor(invoked), out)
	}
	return out
}

// apply applies a post decision to res.
func (r *run) apply(res registry.Result, d PostDecision) (registry.Result, error) {
	extra := d.AdditionalContexts
	switch {
	case d.Block:
		out := registry.Result{
			IsError:            true,
			Error:              &registry.Failure{Message: blockMessage(d.Feedback)},
			Content:            d.Feedback,
			Meta:               res.Meta,
			AdditionalContexts: extra, // only the blocking decision's
		}
		return out.Clone(), nil
	case d.ReplaceValue && d.ReplaceContent:
		return registry.Result{}, errReplaceBoth
	case d.ReplaceValue:
		if res.IsError {
			return registry.Result{}, errReplaceFailedValue
		}
		tool := r.p.reg.Get(r.exec.Name, r.exec.Scope)
		var out registry.Result
		if tool == nil {
			out = fromError(registry.UnknownToolError(r.exec.Name))
		} else {
			out = buildSuccess(tool, r.exec.Arguments, d.Value, r.exec.Parent.IsZero())
			if !out.IsError {
				out.ConcludesTurn = res.ConcludesTurn
			}
		}
		out.AdditionalContexts = appendContexts(res.AdditionalContexts, extra)
		return out, nil
	case d.ReplaceContent:
		res.Content = append([]card.Content(nil), d.Content...)
	}
	res.AdditionalContexts = appendContexts(res.AdditionalContexts, extra)
	return res, nil
}

func appendContexts(a, b []registry.ContextMessage) []registry.ContextMessage {
	if len(b) == 0 {
		return a
	}
	return append(append([]registry.ContextMessage{}, a...), b...)
}

// finish materializes the result, calls the captured finalizer exactly
// once, materializes again, and notifies observers. Every path ends here.
func (r *run) finish(res registry.Result) registry.Result {
	if !materialized(res) {
		res = failed(msgResultNotLossless, nil)
	}
	if r.finalizer != nil {
		var blocks []card.Content
		var replace bool
		err := protect(func() error {
			blocks, replace = r.finalizer(r.exec, res.Clone())
			return nil
		})
		switch {
		case err != nil:
			res = fromError(err)
		case replace:
			res.Content = append([]card.Content(nil), blocks...)
		}
		if !materialized(res) {
			res = failed(msgResultNotLossless, nil)
		}
	}
	if res.IsError {
		res.Value, res.ConcludesTurn = jsonv.Value{}, false
	}
	for _, o := range matching(r.p, &r.p.observers, r.exec.Scope) {
		if err := protect(func() error { o(r.exec, res.Clone()); return nil }); err != nil {
			r.p.log.Warn(`tool "` + r.exec.Name + `" (` + r.exec.CallID + `): tools/result observer failed: ` + err.Error())
		}
	}
	return res.Clone()
}
