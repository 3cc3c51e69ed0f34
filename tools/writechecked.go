package tools

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// CheckedWriter is a Host that writes a file and has check judge where
// the write really lands: the directory it writes into, as the kernel
// names it once opened, and the file's name in it. A directory swapped
// for a symlink between the judgement and the write (by a command the
// model runs beside the call) then cannot send the write elsewhere.
//
// WriteChecked calls check before it changes anything (with the path
// resolved as it stands), and again with the directory it opened; it
// returns check's errors unchanged. A Host that embeds LocalHost but
// writes files elsewhere must override it, as it overrides
// WriteTextFile.
type CheckedWriter interface {
	WriteChecked(ctx context.Context, path, content string, check func(real string) error) error
}

// WriteJudged writes path through h once check accepted its resolved
// path, and names that resolved path to h: what a Host that writes files
// elsewhere (through an editor) does for [CheckedWriter]. A symlink on
// the way that changes after the judgement cannot send the write
// anywhere else.
func WriteJudged(ctx context.Context, h Host, path, content string, check func(real string) error) error {
	real := workspace.Resolve(path)
	if err := check(real); err != nil {
		return err
	}
	return h.WriteTextFile(ctx, real, content)
}

// WriteChecked implements CheckedWriter on the local disk (WriteTextFile
// is it without a judge): workspace.WriteFile.
func (LocalHost) WriteChecked(_ context.Context, path, content string, check func(string) error) error {
	return workspace.WriteFile(path, content, check)
}
