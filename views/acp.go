package views

import (
	"fmt"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Status is an ACP ToolCallStatus.
type Status string

// Tool call statuses (ACP v1 has no "cancelled": a cancelled call ends
// failed).
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Failed     Status = "failed"
)

// ToolCallContent is one ACP ToolCallContent item: a content block, a file
// diff, or an embedded editor terminal.
type ToolCallContent struct {
	Type       string       // "content", "diff" or "terminal"
	Content    card.Content // for "content"
	Path       string       // for "diff": absolute
	OldText    *string      // for "diff": nil for a new file
	NewText    string       // for "diff"
	TerminalID string       // for "terminal"
}

// AppendJSON writes the item's ACP shape in one pass.
func (c ToolCallContent) AppendJSON(dst []byte) ([]byte, error) {
	switch c.Type {
	case "content":
		dst = append(dst, `{"type":"content","content":`...)
		dst, err := c.Content.AppendJSON(dst)
		return append(dst, '}'), err
	case "diff":
		dst = append(dst, `{"type":"diff","path":`...)
		dst = append(jsonv.AppendString(dst, c.Path), `,"oldText":`...)
		if c.OldText == nil {
			dst = append(dst, "null"...)
		} else {
			dst = jsonv.AppendString(dst, *c.OldText)
		}
		dst = append(dst, `,"newText":`...)
		return append(jsonv.AppendString(dst, c.NewText), '}'), nil
	case "terminal":
		dst = append(dst, `{"type":"terminal","terminalId":`...)
		return append(jsonv.AppendString(dst, c.TerminalID), '}'), nil
	}
	return nil, fmt.Errorf("views: unknown tool call content type %q", c.Type)
}

// MarshalJSON emits the item's ACP shape.
func (c ToolCallContent) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// TextItem returns a content item holding one text block.
func TextItem(s string) ToolCallContent {
	return ToolCallContent{Type: "content", Content: card.Text(s)}
}

// Location is an ACP ToolCallLocation: an absolute path and a 1-based line
// (0: none).
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// ToolCallUpdate is the `update` of a session/update notification for a
// tool call: SessionUpdate "tool_call" (the first announcement, Title
// required) or "tool_call_update" (only the fields that change; nil
// Content or Locations mean unchanged, an empty non-nil one clears). It is
// also the shape of session/request_permission's toolCall.
type ToolCallUpdate struct {
	SessionUpdate string            `json:"sessionUpdate,omitempty"`
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title,omitempty"`
	Name          string            `json:"name,omitempty"`
	Kind          card.Kind         `json:"kind,omitempty"`
	Status        Status            `json:"status,omitempty"`
	Content       []ToolCallContent `json:"content,omitzero"`
	Locations     []Location        `json:"locations,omitzero"`
	RawInput      jsonv.Value       `json:"rawInput,omitzero"`
	RawOutput     jsonv.Value       `json:"rawOutput,omitzero"`
	Meta          map[string]any    `json:"_meta,omitempty"`
}

// MetaVersion is the version of the `_meta.dsh` payload (docs/meta-dsh.md).
const MetaVersion = 1

// DshMeta is our rich payload under `_meta.dsh` on every tool call update:
// the full card plus what editors need to render it natively.
type DshMeta struct {
	Version int `json:"version"`
	// Card is the card the update was projected from; absent only in the
	// tokens update that follows a read card.
	Card any `json:"card,omitempty"`
	// Changes are a diff card's per-file hunks and LSP text edits.
	Changes []FileChange `json:"changes,omitempty"`
	// Tokens are a read card's syntax spans, one slice per line.
	Tokens highlight.TokenLines `json:"tokens,omitempty"`
	// PackedTokens are the same spans packed (Env.PackedTokens), in place
	// of Tokens.
	PackedTokens highlight.Packed `json:"packedTokens,omitempty"`
	// Terminal is a terminal card's output and exit status.
	Terminal *TerminalMeta `json:"terminal,omitempty"`
	// ParentToolCallID is the run_code call a Code Mode sub-call belongs
	// to, so that an editor can nest its card.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	// Diagnostics are a diff result's language-server errors and
	// warnings in the changed file.
	Diagnostics []card.Diagnostic `json:"diagnostics,omitempty"`
}

// SetParent marks u as a sub-call of the run_code call parent.
func SetParent(u *ToolCallUpdate, parent string) {
	if parent == "" {
		return
	}
	if u.Meta == nil {
		u.Meta = map[string]any{}
	}
	m, _ := u.Meta["dsh"].(DshMeta)
	m.Version = MetaVersion
	m.ParentToolCallID = parent
	u.Meta["dsh"] = m
}

// TerminalMeta is a finished command's output and exit status.
type TerminalMeta struct {
	Output   string `json:"output"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Signal   string `json:"signal,omitempty"`
}
