package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Judged is what a permission decision judged of a call's files, for the
// host to hold the call to as it runs: a file the call opens must lie in
// the workspace or be one of Paths (resolved), unless Anywhere. Between
// the decision and the open, a command the model runs beside the call
// could swap a symlink in the workspace for one to a file outside it;
// the decision (and the person who answered it) never saw that file.
type Judged struct {
	Paths    []string // resolved, as the decision saw them
	Anywhere bool     // the mode allows every path
}

type judgedKey struct{}

// WithJudged returns ctx carrying j to the host of the call it runs.
func WithJudged(ctx context.Context, j Judged) context.Context {
	return context.WithValue(ctx, judgedKey{}, j)
}

// judgedFrom returns the judgement ctx carries, if any.
func judgedFrom(ctx context.Context) (Judged, bool) {
	j, ok := ctx.Value(judgedKey{}).(Judged)
	return j, ok
}

// holdTo refuses real (what a call is about to touch, resolved) when ctx
// carries a judgement that does not cover it: outside the workspace, and
// not a path the decision judged. A call without a judgement (tools run
// outside a session's policy) is not held.
func holdTo(ctx context.Context, ws *Workspace, path, real, verb string) error {
	j, ok := judgedFrom(ctx)
	if !ok || j.Anywhere || ws.ContainsResolved(real) || slices.Contains(j.Paths, real) {
		return nil
	}
	return registry.NewError("PermissionError", "FS_PERMISSION_DENIED",
		fmt.Sprintf("cannot %s %q: it now leads to %s, outside the workspace, which this call was not judged on", verb, path, real))
}
