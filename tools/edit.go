package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/views"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

type writeArgs struct {
	FilePath string `json:"file_path" desc:"Path to write: absolute, or relative to the workspace. Parent directories are created."`
	Content  string `json:"content" desc:"The complete new content of the file."`
}

type writeValue struct {
	Path      string  `json:"path"`
	Operation string  `json:"operation" enum:"create,update"`
	Before    *string `json:"before"`
	After     string  `json:"after"`
	// Diagnostics are the language server's errors and warnings in the
	// file after the write.
	Diagnostics []card.Diagnostic `json:"diagnostics,omitempty"`
	// Partial is set when the person approved some of the proposed hunks.
	Partial *partialValue `json:"partial,omitempty"`
}

type editArgs struct {
	FilePath   string `json:"file_path" desc:"Path of the file to edit: absolute, or relative to the workspace."`
	OldString  string `json:"old_string" desc:"The exact text to replace."`
	NewString  string `json:"new_string" desc:"The text to replace it with."`
	ReplaceAll bool   `json:"replace_all,omitempty" desc:"Replace every occurrence instead of requiring exactly one."`
}

type editValue struct {
	Path   string `json:"path"`
	Before string `json:"before"`
	After  string `json:"after"`
	// Diagnostics are the language server's errors and warnings in the
	// file after the edit.
	Diagnostics []card.Diagnostic `json:"diagnostics,omitempty"`
	// Partial is set when the person approved some of the proposed hunks.
	Partial *partialValue `json:"partial,omitempty"`
}

// appliedDiffs returns the change as one FileDiff per hunk (with its
// context lines), which is what the result card shows.
func appliedDiffs(path, before, after string) []card.FileDiff {
	out := []card.FileDiff{}
	for _, h := range views.Change(path, before, after).Hunks {
		var o, n strings.Builder
		for _, l := range h.Lines {
			if l.Op != "+" {
				o.WriteString(l.Text)
			}
			if l.Op != "-" {
				n.WriteString(l.Text)
			}
		}
		old := o.String()
		out = append(out, card.FileDiff{Path: path, OldText: &old, NewText: n.String(), StartLine: max(h.OldStart, 1)})
	}
	return out
}

func diffsMeta(diffs []card.FileDiff, diags []card.Diagnostic) (jsonv.Value, error) {
	m := map[string]any{"diffs": diffs}
	if len(diags) > 0 {
		m["diagnostics"] = diags
	}
	return jsonv.FromGo(m)
}

func diffsFromMeta(meta jsonv.Value) ([]card.FileDiff, []card.Diagnostic, bool) {
	var m struct {
		Diffs       []card.FileDiff   `json:"diffs"`
		Diagnostics []card.Diagnostic `json:"diagnostics"`
	}
	if !meta.IsValid() || meta.Decode(&m) != nil || m.Diffs == nil {
		return nil, nil, false
	}
	for _, d := range m.Diffs {
		if d.Path == "" {
			return nil, nil, false
		}
	}
	return m.Diffs, m.Diagnostics, true
}

func envelope(path, body string) string {
	return "<path>" + neutral(path) + "</path>\n<type>file</type>\n<content>\n" + body + "\n</content>"
}

// envelopeTag is the start of one of the envelope's tags (<path>,
// </content>, …), spaced or in any case.
var envelopeTag = regexp.MustCompile(`(?i)<(\s*/?\s*(?:path|type|content)\b)`)

// neutral is a text placed in or after the envelope (a file's name, a
// language server's diagnostics) with the envelope's tags written
// "&lt;path>": it cannot close the envelope and open a forged one.
func neutral(s string) string { return envelopeTag.ReplaceAllString(s, "&lt;$1") }

func newWrite(h Host, w *workspace.Workspace, chk Checker) (*registry.Tool, error) {
	t, err := registry.Define(registry.TypedTool[writeArgs, writeValue]{
		Name:        "write",
		Description: "Write a UTF-8 text file, replacing its content or creating it (with missing parent directories). Prefer edit for changes to an existing file.",
		Execute: func(ctx context.Context, a writeArgs, _ registry.RunContext) (writeValue, error) {
			if strings.TrimSpace(a.FilePath) == "" {
				return writeValue{}, errors.New("file_path must be a non-empty string")
			}
			path := w.Abs(a.FilePath)
			v := writeValue{Path: path, Operation: "create", After: a.Content}
			sel, partial := hunkSelectionFrom(ctx)
			info, err := h.Stat(ctx, path)
			switch {
			case err == nil && !info.Mode().IsRegular():
				return writeValue{}, fsError("FS_NOT_REGULAR_FILE", fmt.Sprintf("cannot write %q: not a regular file", path))
			case err == nil:
				before, err := h.ReadTextFile(ctx, path)
				if err != nil {
					return writeValue{}, ioError(err, fmt.Sprintf("cannot write %q: %v", path, err))
				}
				v.Operation, v.Before = "update", &before
				if partial {
					if v.After, v.Partial, err = applySelection(sel, path, before); err != nil {
						return writeValue{}, err
					}
				}
			case !errors.Is(err, fs.ErrNotExist):
				return writeValue{}, ioError(err, fmt.Sprintf("cannot write %q: %v", path, err))
			case partial: // the file the hunks were proposed for is gone
				return writeValue{}, fsError("FS_STALE_VERSION", fmt.Sprintf("the approved hunks no longer apply to %q: the file no longer exists; nothing was written", path))
			}
			if err := h.WriteTextFile(ctx, path, v.After); err != nil {
				return writeValue{}, writeError(path, err)
			}
			v.Diagnostics = afterChange(ctx, chk, h, w, path, v.After)
			return v, nil
		},
		Render: func(_ writeArgs, v writeValue) ([]card.Content, error) {
			body, partial := "Created file", ""
			if v.Operation == "update" {
				body = "Updated file"
			}
			if v.Partial != nil {
				partial = "\n" + v.Partial.text(v.Path)
			}
			return []card.Content{card.Text(envelope(v.Path, body) + partial + diagnosticsBlock(v.Path, v.Diagnostics))}, nil
		},
		PresentationMeta: func(_ writeArgs, v writeValue, _ jsonv.Value) (jsonv.Value, error) {
			diffs := []card.FileDiff{}
			if v.Before != nil {
				diffs = appliedDiffs(v.Path, *v.Before, v.After)
			}
			return diffsMeta(diffs, v.Diagnostics)
		},
		PresentCall: func(a writeArgs) card.CallView {
			return &card.Diff{Title: "Write " + a.FilePath, Diffs: []card.FileDiff{{Path: a.FilePath, NewText: a.Content}}, Locations: []card.FileLocation{{Path: a.FilePath}}}
		},
		PreviewCall: func(ctx context.Context, a writeArgs) card.CallView { return previewWrite(ctx, h, w, a) },
		PresentResult: func(a writeArgs, r registry.ToolResult) card.ResultView {
			if r.IsError {
				return nil
			}
			diffs, diags, ok := diffsFromMeta(r.Meta)
			if ok && len(diffs) > 0 {
				return &card.DiffResult{Title: "Write " + a.FilePath, Diffs: diffs, Diagnostics: diags}
			}
			return &card.DiffResult{Title: "Write " + a.FilePath, Diffs: []card.FileDiff{{Path: a.FilePath, NewText: a.Content}}, Diagnostics: diags}
		},
	})
	if err != nil {
		return nil, err
	}
	t.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "file_path", true) }
	return t, nil
}

func writeError(path string, err error) error {
	var te *registry.Error
	if !errors.As(err, &te) && errors.Is(err, fs.ErrPermission) {
		return fsError("FS_PERMISSION_DENIED", fmt.Sprintf("cannot write %q: permission denied", path))
	}
	return ioError(err, fmt.Sprintf("cannot write %q: %v", path, err))
}

// ioError is FS_IO_ERROR with msg, unless err already is a tool error
// (the path rules' or the permission decision's refusal), which is
// returned as it is.
func ioError(err error, msg string) error {
	var te *registry.Error
	if errors.As(err, &te) {
		return err
	}
	return fsError("FS_IO_ERROR", msg)
}

// ApplyLiteralEdit replaces old with new in text, literally. Matching
// ignores the difference between CRLF and LF (models write LF), but the
// edit happens on the file's bytes in place: only the matched spans
// change, and each replacement takes the line ending of the text it
// replaces (or, when that text has none, of the line it sits on). It
// returns the new text and the number of (non-overlapping) matches; with
// replaceAll false, more than one match replaces nothing.
func ApplyLiteralEdit(text, old, new string, replaceAll bool) (string, int) {
	old = strings.ReplaceAll(old, "\r\n", "\n")
	new = strings.ReplaceAll(new, "\r\n", "\n")
	norm, orig := normalizeCRLF(text)
	var spans [][2]int // matches in norm
	for from := 0; ; {
		k := strings.Index(norm[from:], old)
		if k < 0 {
			break
		}
		spans = append(spans, [2]int{from + k, from + k + len(old)})
		from += k + len(old)
	}
	n := len(spans)
	if n == 0 || (n > 1 && !replaceAll) {
		return text, n
	}
	var b strings.Builder
	b.Grow(len(text) + n*(len(new)-len(old)+8))
	last := 0
	for _, sp := range spans {
		start, end := orig[sp[0]], orig[sp[1]]
		b.WriteString(text[last:start])
		repl := new
		if lineEnding(text, start, end) == "\r\n" {
			repl = strings.ReplaceAll(new, "\n", "\r\n")
		}
		b.WriteString(repl)
		last = end
	}
	b.WriteString(text[last:])
	return b.String(), n
}

// normalizeCRLF returns text with each CRLF as LF, and for every position
// of the result (and its end) the position in text where that byte's
// source starts: a LF that was a CRLF maps to its CR, so spans mapped back
// never split a CRLF.
func normalizeCRLF(text string) (string, []int) {
	var b strings.Builder
	b.Grow(len(text))
	orig := make([]int, 0, len(text)+1)
	for i := 0; i < len(text); i++ {
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			orig = append(orig, i)
			b.WriteByte('\n')
			i++
			continue
		}
		orig = append(orig, i)
		b.WriteByte(text[i])
	}
	orig = append(orig, len(text))
	return b.String(), orig
}

// lineEnding is the line ending of text[start:end]: its first one, else
// that of the line the span sits on (the next ending after it, else the
// one before it), else LF.
func lineEnding(text string, start, end int) string {
	ending := func(nl int) string {
		if nl > 0 && text[nl-1] == '\r' {
			return "\r\n"
		}
		return "\n"
	}
	if k := strings.IndexByte(text[start:end], '\n'); k >= 0 {
		return ending(start + k)
	}
	if k := strings.IndexByte(text[end:], '\n'); k >= 0 {
		return ending(end + k)
	}
	if k := strings.LastIndexByte(text[:start], '\n'); k >= 0 {
		return ending(k)
	}
	return "\n"
}

func newEdit(h Host, w *workspace.Workspace, chk Checker) (*registry.Tool, error) {
	t, err := registry.Define(registry.TypedTool[editArgs, editValue]{
		Name:        "edit",
		Description: "Replace exact text in a file. old_string must match exactly once unless replace_all is set; include enough surrounding lines to make it unique.",
		Execute: func(ctx context.Context, a editArgs, _ registry.RunContext) (editValue, error) {
			switch {
			case strings.TrimSpace(a.FilePath) == "":
				return editValue{}, errors.New("file_path must be a non-empty string")
			case a.OldString == "":
				return editValue{}, errors.New("old_string must be a non-empty string")
			case a.OldString == a.NewString:
				return editValue{}, errors.New("old_string and new_string must differ")
			}
			path := w.Abs(a.FilePath)
			if _, err := statFile(ctx, h, path, "edit"); err != nil {
				return editValue{}, err
			}
			before, err := h.ReadTextFile(ctx, path)
			if err != nil {
				return editValue{}, ioError(err, fmt.Sprintf("cannot edit %q: %v", path, err))
			}
			if sel, ok := hunkSelectionFrom(ctx); ok {
				after, partial, err := applySelection(sel, path, before)
				if err != nil {
					return editValue{}, err
				}
				if err := h.WriteTextFile(ctx, path, after); err != nil {
					return editValue{}, writeError(path, err)
				}
				diags := afterChange(ctx, chk, h, w, path, after)
				return editValue{Path: path, Before: before, After: after, Partial: partial, Diagnostics: diags}, nil
			}
			after, n := ApplyLiteralEdit(before, a.OldString, a.NewString, a.ReplaceAll)
			switch {
			case n == 0:
				return editValue{}, fsError("FS_EDIT_NOT_FOUND", fmt.Sprintf("old_string was not found in %q", path))
			case n > 1 && !a.ReplaceAll:
				return editValue{}, fsError("FS_AMBIGUOUS_EDIT", fmt.Sprintf("old_string matched %d times in %q; provide a more specific old_string or set replace_all to true", n, path))
			}
			if err := h.WriteTextFile(ctx, path, after); err != nil {
				return editValue{}, writeError(path, err)
			}
			return editValue{Path: path, Before: before, After: after, Diagnostics: afterChange(ctx, chk, h, w, path, after)}, nil
		},
		Render: func(a editArgs, v editValue) ([]card.Content, error) {
			diags, path := diagnosticsBlock(v.Path, v.Diagnostics), neutral(v.Path)
			if v.Partial != nil {
				return []card.Content{card.Text(v.Partial.text(path) + diags)}, nil
			}
			if a.ReplaceAll {
				return []card.Content{card.Text("The file " + path + " has been updated. All occurrences were successfully replaced." + diags)}, nil
			}
			return []card.Content{card.Text("The file " + path + " has been updated successfully." + diags)}, nil
		},
		PresentationMeta: func(_ editArgs, v editValue, _ jsonv.Value) (jsonv.Value, error) {
			return diffsMeta(appliedDiffs(v.Path, v.Before, v.After), v.Diagnostics)
		},
		PresentCall: func(a editArgs) card.CallView {
			var old *string
			if a.OldString != "" {
				old = &a.OldString
			}
			return &card.Diff{Title: "Edit " + a.FilePath, Diffs: []card.FileDiff{{Path: a.FilePath, OldText: old, NewText: a.NewString}}, Locations: []card.FileLocation{{Path: a.FilePath}}}
		},
		PreviewCall: func(ctx context.Context, a editArgs) card.CallView { return previewEdit(ctx, h, w, a) },
		PresentResult: func(a editArgs, r registry.ToolResult) card.ResultView {
			if r.IsError {
				return nil
			}
			if diffs, diags, ok := diffsFromMeta(r.Meta); ok {
				return &card.DiffResult{Title: "Edit " + a.FilePath, Diffs: diffs, Diagnostics: diags}
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	t.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "file_path", true) }
	return t, nil
}
