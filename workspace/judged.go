package workspace

import (
	"context"
	"slices"
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

// Holds reports whether a call run with ctx may touch real (resolved):
// ctx carries no judgement (tools run outside a session's policy), or
// one that covers real: Anywhere, inside w, or a path the decision
// judged.
func Holds(ctx context.Context, w *Workspace, real string) bool {
	j, ok := judgedFrom(ctx)
	return !ok || j.Anywhere || w.ContainsResolved(real) || slices.Contains(j.Paths, real)
}
