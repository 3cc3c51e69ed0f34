package tools

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// PathRules is what a permission policy enforces where files are opened,
// listed and written, whatever the call's arguments said.
type PathRules interface {
	// CheckPath returns an error when the resolved absolute path may not be
	// read (write false) or changed (write true).
	CheckPath(path string, write bool) error
	// DeniedTrees lists resolved directories searches must not enter.
	DeniedTrees() []string
}

// guardedHost is a Host that resolves every path and checks it against
// the rules before the inner host sees it.
type guardedHost struct {
	Host
	ws    *workspace.Workspace
	rules PathRules
}

// checkHeld judges a path by the rules, with the call held to its permission decision
// (holdTo) on the path as it resolves now.
func (h guardedHost) checkHeld(ctx context.Context, path, verb string) error {
	real := h.ws.Resolve(path)
	if err := h.judge(real, false); err != nil {
		return err
	}
	return holdTo(ctx, h.ws, path, real, verb)
}

// judgeHeld returns the judge of what a call touches: the rules, then
// its permission decision.
func (h guardedHost) judgeHeld(ctx context.Context, path, verb string, write bool) func(string) error {
	return func(real string) error {
		if err := h.judge(real, write); err != nil {
			return err
		}
		return holdTo(ctx, h.ws, path, real, verb)
	}
}

// judge is the rules' verdict on a resolved path, as a tool error.
func (h guardedHost) judge(real string, write bool) error {
	if err := workspace.ProcessSecret(real); err != nil {
		return registry.NewError("PermissionError", "FS_PERMISSION_DENIED", err.Error())
	}
	if err := h.rules.CheckPath(real, write); err != nil {
		return registry.NewError("PermissionError", "FS_PERMISSION_DENIED", err.Error())
	}
	return nil
}

// ReadTextFile reads what the rules and the call's decision accept: on a
// host that can judge the file it opened (the local disk), that file.
func (h guardedHost) ReadTextFile(ctx context.Context, path string) (string, error) {
	if o, ok := h.Host.(CheckedOpener); ok {
		rc, err := o.OpenChecked(ctx, path, "read", h.judgeHeld(ctx, path, "read", false))
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	if err := h.checkHeld(ctx, path, "read"); err != nil {
		return "", err
	}
	return h.Host.ReadTextFile(ctx, path)
}

func (h guardedHost) OpenText(ctx context.Context, path string) (io.ReadCloser, error) {
	if err := h.checkHeld(ctx, path, "read"); err != nil {
		return nil, err
	}
	return openText(ctx, h.Host, path)
}

// WriteTextFile judges where the write lands: on a host that can judge
// the directory it writes into (the local disk), that directory.
func (h guardedHost) WriteTextFile(ctx context.Context, path, content string) error {
	judge := h.judgeHeld(ctx, path, "write", true)
	if w, ok := h.Host.(CheckedWriter); ok {
		return w.WriteChecked(ctx, path, content, judge)
	}
	return WriteJudged(ctx, h.Host, path, content, judge)
}

// openRegular is statFile then openText, with the path judged once for
// both (each judgement resolves every component of the path).
//
// On a host that can judge the file it opened (the local disk), the rules
// judge that file instead, so that nothing can swap it between the
// judgement and the open.
func (h guardedHost) openRegular(ctx context.Context, path, verb string) (io.ReadCloser, error) {
	judge := h.judgeHeld(ctx, path, verb, false)
	if o, ok := h.Host.(CheckedOpener); ok {
		return o.OpenChecked(ctx, path, verb, judge)
	}
	return OpenRegular(ctx, h.Host, path, verb, judge)
}

// OpenRegular opens the regular file path (absolute) through h once check
// accepted its resolved path: what a Host that reads files elsewhere (an
// editor's buffers) does for [CheckedOpener]. Its errors are check's and
// the read tool's FS errors for verb.
func OpenRegular(ctx context.Context, h Host, path, verb string, check func(real string) error) (io.ReadCloser, error) {
	if err := check(workspace.Resolve(path)); err != nil {
		return nil, err
	}
	if _, err := statFile(ctx, h, path, verb); err != nil {
		return nil, err
	}
	return openText(ctx, h, path)
}

// Sandboxed reports whether the inner host sandboxes commands.
func (h guardedHost) Sandboxed(ctx context.Context) bool { return sandboxed(ctx, h.Host) }

func (h guardedHost) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	if err := h.checkHeld(ctx, path, "read"); err != nil {
		return nil, err
	}
	return h.Host.Stat(ctx, path)
}

// hidden reports whether a search result (absolute) lies in a denied
// tree; resolved paths are cached per search.
type hider struct {
	ws    *workspace.Workspace
	rules PathRules
	seen  map[string]bool
}

func newHider(ws *workspace.Workspace, rules PathRules) *hider {
	if rules == nil {
		return nil
	}
	return &hider{ws: ws, rules: rules, seen: map[string]bool{}}
}

func (h *hider) hidden(abs string) bool {
	if h == nil {
		return false
	}
	if v, ok := h.seen[abs]; ok {
		return v
	}
	real := h.ws.Resolve(abs)
	v := workspace.ProcessSecret(real) != nil || h.rules.CheckPath(real, false) != nil
	h.seen[abs] = v
	return v
}

// excludes returns ripgrep globs that keep it out of the denied trees
// under root (resolved): a first cut; results are filtered again.
func (h *hider) excludes(root string) []string {
	if h == nil {
		return nil
	}
	realRoot := workspace.Resolve(root)
	var out []string
	for _, t := range h.rules.DeniedTrees() {
		rel, err := filepath.Rel(realRoot, t)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, "--glob=!/"+filepath.ToSlash(rel), "--glob=!/"+filepath.ToSlash(rel)+"/**")
	}
	return out
}

// skip returns the walker's pruning function (nil without rules).
func (h *hider) skip() func(string) bool {
	if h == nil {
		return nil
	}
	return h.hidden
}

// holdTo refuses real (what a call is about to touch, resolved) when ctx
// carries a judgement that does not cover it (workspace.Holds).
func holdTo(ctx context.Context, ws *workspace.Workspace, path, real, verb string) error {
	if workspace.Holds(ctx, ws, real) {
		return nil
	}
	return registry.NewError("PermissionError", "FS_PERMISSION_DENIED",
		fmt.Sprintf("cannot %s %q: it now leads to %s, outside the workspace, which this call was not judged on", verb, path, real))
}
