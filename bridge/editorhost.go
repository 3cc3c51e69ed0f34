package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// editorHost is the tools.Host of a session: file reads and writes go
// through the editor when the client advertised fs.readTextFile and
// fs.writeTextFile (its unsaved buffers are what the person sees, and
// editors such as Zed review agent edits only when they arrive through
// fs/write_text_file); everything else, and everything the client did not
// advertise, runs on the local machine. It never calls a method the client
// did not advertise.
type editorHost struct {
	tools.LocalHost
	session *Session
}

// editorReadLimit is the largest file read through the editor: a larger
// file on this machine is read locally (an editor buffer of that size is
// rarely open, and its reply, escaped, could pass the 64 MiB line limit).
const editorReadLimit = 8 << 20

// fsCallTimeout bounds every file call to the editor.
const fsCallTimeout = time.Minute

// readsLocally reports whether a file is read from disk rather than
// through the editor: when the client cannot read files, or the file is
// larger than editorReadLimit.
func (h *editorHost) readsLocally(path string) bool {
	if !h.session.caps.FS.ReadTextFile {
		return true
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() > editorReadLimit
}

func (h *editorHost) ReadTextFile(ctx context.Context, path string) (string, error) {
	if h.readsLocally(path) {
		return h.LocalHost.ReadTextFile(ctx, path)
	}
	return h.readThroughEditor(ctx, path)
}

// readThroughEditor asks the editor for a file's text (its buffer, when open).
func (h *editorHost) readThroughEditor(ctx context.Context, path string) (string, error) {
	var res jsonv.Value // parsed once, by the read loop
	if err := h.call(ctx, "fs/read_text_file", map[string]any{"sessionId": h.session.id, "path": path}, &res); err != nil {
		return "", editorError("read", path, err)
	}
	content, ok := res.Get("content")
	if res.Kind() != jsonv.Object || !ok || content.Kind() != jsonv.String {
		return "", fmt.Errorf("the editor's answer to fs/read_text_file holds no text: %s", truncateJSON(res))
	}
	return content.Str(), nil
}

// OpenText streams large local files (and every file when the client
// cannot read them) from disk; other files come through the editor.
func (h *editorHost) OpenText(ctx context.Context, path string) (io.ReadCloser, error) {
	if h.readsLocally(path) {
		return h.LocalHost.OpenText(ctx, path)
	}
	s, err := h.readThroughEditor(ctx, path)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

// OpenChecked judges and opens what OpenText would read: a local file
// through its descriptor (tools.LocalHost's); a file the editor serves is
// judged on this disk (workspace.Pin), the editor is asked for it by the
// name judged (every symlink resolved), and its answer is returned only
// if that name still leads to the same file once it came.
func (h *editorHost) OpenChecked(ctx context.Context, path, verb string, check func(string) error) (io.ReadCloser, error) {
	if h.readsLocally(path) {
		return h.LocalHost.OpenChecked(ctx, path, verb, check)
	}
	pin, err := workspace.Pin(path, check)
	if err != nil {
		return nil, tools.FileError(err, verb, path)
	}
	s, err := h.readThroughEditor(ctx, pin.Real)
	if err != nil {
		return nil, err
	}
	if err := pin.Recheck(path, verb); err != nil {
		return nil, tools.FileError(err, verb, path)
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

// WriteChecked and WriteTextFile record the file's pre-image in the
// turn's checkpoint first.
//
// WriteChecked judges where WriteTextFile would write: a local write
// through its directory's descriptor (tools.LocalHost's), a write the
// editor makes by its resolved path before the editor is asked.
func (h *editorHost) WriteChecked(ctx context.Context, path, content string, check func(string) error) error {
	h.session.ckpt.BeforeWrite(path)
	if !h.session.caps.FS.WriteTextFile {
		return h.LocalHost.WriteChecked(ctx, path, content, check)
	}
	return tools.WriteJudged(ctx, h, path, content, check)
}

func (h *editorHost) WriteTextFile(ctx context.Context, path, content string) error {
	h.session.ckpt.BeforeWrite(path)
	if !h.session.caps.FS.WriteTextFile {
		return h.LocalHost.WriteTextFile(ctx, path, content)
	}
	var res any
	if err := h.call(ctx, "fs/write_text_file", map[string]any{"sessionId": h.session.id, "path": path, "content": content}, &res); err != nil {
		return editorError("write", path, err)
	}
	return nil
}

// call is one file call to the editor, bounded by fsCallTimeout.
func (h *editorHost) call(ctx context.Context, method string, params, res any) error {
	cctx, cancel := context.WithTimeout(ctx, fsCallTimeout)
	defer cancel()
	err := h.session.srv.conn.Call(cctx, method, params, res)
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		return fmt.Errorf("the editor did not answer %s within %v", method, fsCallTimeout)
	}
	return err
}

// editorError maps an editor's failure: "not found" errors (-32002 or
// their message) wrap fs.ErrNotExist, so tools report FS_NOT_FOUND.
func editorError(verb, path string, err error) error {
	var we *acp.Error
	if errors.As(err, &we) && (we.Code == acp.CodeResourceNotFound || strings.Contains(strings.ToLower(we.Message), "not found")) {
		return fmt.Errorf("the editor could not %s %s: %w", verb, path, fs.ErrNotExist)
	}
	return fmt.Errorf("the editor could not %s %s: %w", verb, path, err)
}

// truncateJSON is v's JSON cut to 200 bytes, for an error message.
func truncateJSON(v jsonv.Value) string {
	if !v.IsValid() {
		return "nothing"
	}
	b := v.Bytes()
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
