package pipeline

import (
	"context"
	"strconv"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// timeoutCause is the cancellation cause of one armed deadline. Each arm
// has its own, so an outer deadline is never mistaken for this one.
type timeoutCause struct{ ms float64 }

// Error gives the milliseconds as the reference prints a JavaScript
// number: 20, 0.5, 2.5 — never truncated to a whole millisecond.
func (c *timeoutCause) Error() string {
	return "tool call timed out after " + strconv.FormatFloat(c.ms, 'f', -1, 64) + "ms"
}

// TimeoutPolicy returns the cooperative timeout wrapper: for a tool that
// declares a Timeout (looked up as the calling scope sees it), it arms a
// deadline on the context it passes on, and when — and only when — its own
// deadline fired, it replaces whatever came back with TOOL_TIMEOUT
// ("tool call timed out after <ms>ms"). A caller cancellation that comes
// first keeps the pipeline's ABORTED; a timeout that came first stays.
// Install it with WrapExecute(nil, TimeoutPolicy(reg)).
func TimeoutPolicy(reg *registry.Registry) Wrapper {
	return func(ctx context.Context, exec registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
		tool := reg.Get(exec.Name, exec.Scope)
		if tool == nil || tool.Timeout <= 0 {
			return next(ctx), nil
		}
		cause := &timeoutCause{ms: float64(tool.Timeout) / float64(time.Millisecond)}
		tctx, cancel := context.WithTimeoutCause(ctx, tool.Timeout, cause)
		defer cancel()
		res := next(tctx)
		if context.Cause(tctx) == error(cause) {
			return failed(cause.Error(), &registry.ErrorInfo{Name: "ToolTimeoutError", Code: registry.CodeToolTimeout}), nil
		}
		return res, nil
	}
}
