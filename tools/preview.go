package tools

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// A pending edit or write shows the change against the file as it is when
// the call is announced, computed exactly as the call will apply it.
const (
	// wholeFileCap is the largest file whose pending diff carries the whole
	// file as oldText and the whole proposed file as newText, which is what
	// ACP's diff content means: clients that diff the two texts themselves
	// then number lines from the file's start. A larger file's pending card
	// carries the changed windows with their context and startLine, as a
	// completed edit's does.
	wholeFileCap = 256 << 10
	// previewCap is the largest file read for a pending card at all; a
	// larger one gets the card of the arguments alone.
	previewCap = 8 << 20
	// previewWait bounds the read (an editor's buffer is a round trip).
	previewWait = 5 * time.Second
)

// previewText returns the text of the file at path (absolute) as the call
// would read it now, or false. It reads only what a read in the workspace
// would, through the same judged host: the path must resolve inside the
// workspace (the judgement carried is the workspace alone, so a symlink
// out of it is refused as it opens), the rules must allow reading it, and
// it must be a regular text file of at most previewCap bytes. A denied or
// outside path is never opened to show a diff.
func previewText(ctx context.Context, h Host, w *workspace.Workspace, path string) (string, bool) {
	if !w.ContainsResolved(w.Resolve(path)) {
		return "", false
	}
	ctx, cancel := context.WithTimeout(workspace.WithJudged(ctx, workspace.Judged{}), previewWait)
	defer cancel()
	rc, err := openRegular(ctx, h, path, "read")
	if err != nil {
		return "", false
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, previewCap+1))
	if err != nil || len(b) > previewCap || strings.IndexByte(string(b), 0) >= 0 {
		return "", false
	}
	return string(b), true
}

// proposedDiffs is a pending card's diffs of before → after for path (as
// the arguments name it): the whole texts up to wholeFileCap, the changed
// windows beyond.
func proposedDiffs(path, before, after string) []card.FileDiff {
	if len(before) <= wholeFileCap && len(after) <= wholeFileCap {
		return []card.FileDiff{{Path: path, OldText: &before, NewText: after}}
	}
	return appliedDiffs(path, before, after)
}

// previewEdit is edit's live pending card: the file's diff, or nil (the
// card of the arguments) when the file cannot be previewed or the edit
// would not apply to it as it is.
func previewEdit(ctx context.Context, h Host, w *workspace.Workspace, a editArgs) card.CallView {
	if strings.TrimSpace(a.FilePath) == "" || a.OldString == "" || a.OldString == a.NewString {
		return nil
	}
	before, ok := previewText(ctx, h, w, w.Abs(a.FilePath))
	if !ok {
		return nil
	}
	after, n := ApplyLiteralEdit(before, a.OldString, a.NewString, a.ReplaceAll)
	if n == 0 || (n > 1 && !a.ReplaceAll) {
		return nil
	}
	return &card.Diff{Title: "Edit " + a.FilePath, Diffs: proposedDiffs(a.FilePath, before, after), Locations: []card.FileLocation{{Path: a.FilePath}}, Proposal: true}
}

// previewWrite is write's live pending card over an existing file: its
// diff against the file, or nil (the card of the arguments).
func previewWrite(ctx context.Context, h Host, w *workspace.Workspace, a writeArgs) card.CallView {
	if strings.TrimSpace(a.FilePath) == "" {
		return nil
	}
	before, ok := previewText(ctx, h, w, w.Abs(a.FilePath))
	if !ok {
		return nil
	}
	return &card.Diff{Title: "Write " + a.FilePath, Diffs: proposedDiffs(a.FilePath, before, a.Content), Locations: []card.FileLocation{{Path: a.FilePath}}, Proposal: true}
}
