package views

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Env is what a projection needs to know besides the card: the session's
// workspace and what the client advertised. Projections are pure functions
// of their arguments.
type Env struct {
	// Cwd is the session's absolute workspace path.
	Cwd string
	// TerminalOutput is the client's `_meta.terminal_output: true`: Zed's
	// convention for agent-owned terminals.
	TerminalOutput bool
	// TerminalID, when set, is the editor terminal (terminal/create) the
	// command runs in; it is embedded as terminal content.
	TerminalID string
	// Tokenizer, when set, gives read cards and programs their syntax
	// tokens.
	Tokenizer Tokenizer
	// Cards is set when the client renders `_meta.dsh` cards (it advertised
	// `clientCapabilities._meta.dsh.version` 1): the standard content of a
	// result whose card already carries its text (read, search) is then a
	// one-line summary instead of that text again.
	Cards bool
	// PackedTokens is set when the client asked for tokens packed
	// (`clientCapabilities._meta.dsh.packedTokens: true`): sent as
	// "packedTokens" (highlight.PackedLines), a sixth of the bytes of
	// "tokens".
	PackedTokens bool
}

// abs resolves p against the workspace.
func (e Env) abs(p string) string {
	if p == "" || e.Cwd == "" {
		return p
	}
	return workspace.AbsIn(runtime.GOOS, e.Cwd, p)
}

// relTitle replaces every occurrence of the absolute path in title with the
// path relative to the workspace, when the path lies inside it.
func (e Env) relTitle(title, path string) string {
	if path == "" || !filepath.IsAbs(path) || !filepath.IsAbs(e.Cwd) {
		return title
	}
	rel, err := filepath.Rel(e.Cwd, path)
	if err != nil || safepath.Escapes(rel) {
		return title
	}
	return strings.ReplaceAll(title, path, rel)
}

func meta(m DshMeta, extra map[string]any) map[string]any {
	m.Version = MetaVersion
	out := map[string]any{"dsh": m}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Call projects a pending card into the `tool_call` announcing callID.
// name is the tool's programmatic name; args the call's arguments.
func Call(env Env, callID, name string, view card.CallView, args jsonv.Value, status Status) ToolCallUpdate {
	u := ToolCallUpdate{SessionUpdate: "tool_call", ToolCallID: callID, Name: name, Status: status, RawInput: args}
	switch v := view.(type) {
	case *card.Generic:
		u.Kind = v.Kind
		if u.Kind == "" {
			u.Kind = card.KindOther
		}
		if v.RawInput != nil {
			if raw, err := jsonv.FromGo(v.RawInput); err == nil {
				u.RawInput = raw
			}
		}
		for _, c := range v.Content {
			u.Content = append(u.Content, ToolCallContent{Type: "content", Content: c})
		}
		u.Locations = env.locations(v.Locations)
		path := ""
		if len(u.Locations) > 0 {
			path = u.Locations[0].Path
		}
		u.Title = env.relTitle(v.Title, path)
		u.Meta = meta(DshMeta{Card: v}, nil) // a program's tokens follow (ProgramTokens)
	case *card.Terminal:
		u.Kind = card.KindExecute
		u.Title = v.Title
		u.RawInput = jsonv.MustString(strings.ToValidUTF8(v.Title, "\uFFFD"))
		if v.Description != "" {
			u.Content = append(u.Content, TextItem(v.Description))
		}
		extra := map[string]any{}
		switch {
		case env.TerminalID != "":
			u.Content = append(u.Content, ToolCallContent{Type: "terminal", TerminalID: env.TerminalID})
		case env.TerminalOutput:
			u.Content = append(u.Content, ToolCallContent{Type: "terminal", TerminalID: callID})
			cwd := env.Cwd
			if v.Cwd != "" {
				cwd = env.abs(v.Cwd)
			}
			extra["terminal_info"] = map[string]any{"terminal_id": callID, "cwd": cwd}
		}
		u.Meta = meta(DshMeta{Card: v}, extra)
	case *card.Diff:
		u.Kind = card.KindEdit
		u.Content, u.Locations = env.diffItems(v.Diffs), env.locations(v.Locations)
		u.Title = env.relTitle(v.Title, firstPath(u.Locations, v.Diffs, env))
		u.Meta = meta(DshMeta{Card: v, Changes: changes(env, v.Diffs)}, nil)
	case *card.Question:
		u.Kind = card.KindThink
		u.Title = v.Title
		u.Content = []ToolCallContent{TextItem(questionText(v.Question, v.Choices))}
		u.Meta = meta(DshMeta{Card: v}, nil)
	}
	if u.Title == "" {
		u.Title = name
	}
	return u
}

// questionText is a question with its choices, one a line.
func questionText(q string, choices []string) string {
	var b strings.Builder
	b.WriteString(q)
	for _, c := range choices {
		b.WriteString("\n- ")
		b.WriteString(c)
	}
	return b.String()
}

// Permission returns the toolCall of a session/request_permission for a
// pending card: the same id and the same content items (a diff for edits,
// the command for commands) as the announced tool_call.
func Permission(env Env, callID, name string, view card.CallView, args jsonv.Value) ToolCallUpdate {
	u := Call(env, callID, name, view, args, Pending)
	u.SessionUpdate, u.Status = "", ""
	if t, ok := view.(*card.Terminal); ok {
		// No terminal exists before approval: show the command itself.
		u.Content = nil
		if t.Description != "" {
			u.Content = append(u.Content, TextItem(t.Description))
		}
		u.Content = append(u.Content, TextItem(fenced("console", "$ "+t.Title)))
		u.Meta = meta(DshMeta{Card: t}, nil)
	}
	return u
}

func firstPath(locs []Location, diffs []card.FileDiff, env Env) string {
	if len(locs) > 0 {
		return locs[0].Path
	}
	if len(diffs) > 0 {
		return env.abs(diffs[0].Path)
	}
	return ""
}

func (e Env) locations(ls []card.FileLocation) []Location {
	if len(ls) == 0 {
		return nil
	}
	out := make([]Location, len(ls))
	for i, l := range ls {
		out[i] = Location{Path: e.abs(l.Path), Line: l.Line}
	}
	return out
}

// diffItems returns one diff item per file (nil for no diffs, so that the
// content key is omitted).
func (e Env) diffItems(ds []card.FileDiff) []ToolCallContent {
	if len(ds) == 0 {
		return nil
	}
	out := make([]ToolCallContent, len(ds))
	for i, d := range ds {
		out[i] = ToolCallContent{Type: "diff", Path: e.abs(d.Path), OldText: d.OldText, NewText: d.NewText}
	}
	return out
}

func changes(env Env, ds []card.FileDiff) []FileChange {
	var out []FileChange
	for _, d := range ds {
		old := ""
		if d.OldText != nil {
			old = *d.OldText
		}
		out = append(out, shift(Change(env.abs(d.Path), old, d.NewText), d.StartLine-1))
	}
	return out
}

// shift moves a change computed on an excerpt to the excerpt's place in
// the file: n lines down.
func shift(fc FileChange, n int) FileChange {
	if n <= 0 {
		return fc
	}
	for i := range fc.Hunks {
		if fc.Hunks[i].OldLines > 0 || fc.Hunks[i].OldStart > 0 {
			fc.Hunks[i].OldStart += n
		}
		if fc.Hunks[i].NewLines > 0 || fc.Hunks[i].NewStart > 0 {
			fc.Hunks[i].NewStart += n
		}
	}
	for i := range fc.Edits {
		fc.Edits[i].Range.Start.Line += uint32(n)
		fc.Edits[i].Range.End.Line += uint32(n)
	}
	return fc
}

// fence returns a code fence longer than any backtick run in text.
func fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// fenced wraps text in a code block with an info string.
func fenced(info, text string) string {
	f := fence(text)
	return f + info + "\n" + text + "\n" + f
}
