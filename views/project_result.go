package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// Result projects a completed card into the final `tool_call_update` of
// callID: status completed or failed, and the card's content, which
// replaces the pending content. call is the pending card the result
// replaces (used for titles and terminal ids); raw is the result's content,
// the fallback for cards without their own.
func Result(env Env, callID, name string, call card.CallView, view card.ResultView, failed bool, raw []card.Content) ToolCallUpdate {
	u := ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: callID, Name: name, Status: Completed}
	if failed {
		u.Status = Failed
	}
	callPath := ""
	if g, ok := call.(*card.Generic); ok && len(g.Locations) > 0 {
		callPath = env.abs(g.Locations[0].Path)
	}
	switch v := view.(type) {
	case *card.GenericResult:
		u.Title = env.relTitle(v.Title, callPath)
		blocks := v.Content
		if blocks == nil {
			blocks = raw
		}
		u.Content = []ToolCallContent{}
		for _, c := range blocks {
			u.Content = append(u.Content, ToolCallContent{Type: "content", Content: c})
		}
		u.Meta = meta(DshMeta{Card: v}, nil)
	case *card.TerminalResult:
		u.Title = v.Title
		tm := &TerminalMeta{Output: v.Output, ExitCode: v.ExitCode, Signal: v.Signal}
		extra := map[string]any{}
		switch {
		case env.TerminalID != "":
			u.Content = []ToolCallContent{{Type: "terminal", TerminalID: env.TerminalID}}
		case env.TerminalOutput:
			// No content: an update's content would replace the terminal.
			extra["terminal_output"] = map[string]any{"terminal_id": callID, "data": v.Output}
			switch {
			case v.Signal != "":
				extra["terminal_exit"] = map[string]any{"terminal_id": callID, "signal": v.Signal}
			case v.ExitCode != nil:
				extra["terminal_exit"] = map[string]any{"terminal_id": callID, "exit_code": *v.ExitCode}
			}
		default:
			u.Content = []ToolCallContent{TextItem(consoleBlock(v))}
		}
		u.Meta = meta(DshMeta{Card: v, Terminal: tm}, extra)
	case *card.DiffResult:
		u.Content = env.diffItems(v.Diffs)
		if len(v.Diagnostics) > 0 {
			// For clients that draw only the standard fields: the problems
			// under the diff, as text.
			u.Content = append(u.Content, TextItem("Language server: "+plural(len(v.Diagnostics), "problem", "problems")+"\n"+
				card.DiagnosticsText(v.Diagnostics, maxCardDiagnostics, 8*1024)))
		}
		u.Title = env.relTitle(v.Title, firstPath(nil, v.Diffs, env))
		u.Meta = meta(DshMeta{Card: v, Changes: changes(env, v.Diffs), Diagnostics: v.Diagnostics}, nil)
	case *card.SearchMatches:
		u.Title = v.Title
		u.Content = []ToolCallContent{TextItem(env.textOrSummary(matchesText(v)))}
		u.Meta = meta(DshMeta{Card: v}, nil)
	case *card.SearchPaths:
		u.Title = v.Title
		u.Content = []ToolCallContent{TextItem(env.textOrSummary(pathsText(v)))}
		u.Meta = meta(DshMeta{Card: v}, nil)
	case *card.Read:
		path := env.abs(v.Path)
		u.Title = env.relTitle(v.Title, path)
		if env.Cards {
			u.Content = []ToolCallContent{TextItem(readSummary(v, env.relTitle(path, path)))}
		} else {
			u.Content = []ToolCallContent{TextItem(readText(v, path))}
		}
		u.Locations = []Location{{Path: path, Line: max(v.Offset, 1)}}
		// Tokens come in a later update (ReadTokens), off the hot path.
		u.Meta = meta(DshMeta{Card: v}, nil)
	case *card.WebSearch:
		u.Title = v.Title
		u.Content = []ToolCallContent{TextItem(webSearchText(v))}
		u.Meta = meta(DshMeta{Card: v}, nil)
	case *card.WebFetch:
		u.Title = v.Title
		u.Content = []ToolCallContent{TextItem(webFetchText(v))}
		u.Meta = meta(DshMeta{Card: v}, nil)
	case *card.Answer:
		u.Title = v.Title
		u.Content = []ToolCallContent{TextItem(answerText(v))}
		u.Meta = meta(DshMeta{Card: v}, nil)
	}
	return u
}

// answerText is a question's outcome as the person reads it.
func answerText(v *card.Answer) string {
	switch v.Outcome {
	case "answered":
		return v.Question + "\n\n→ " + v.Answer
	case "declined":
		return v.Question + "\n\n(declined)"
	case "cancelled":
		return v.Question + "\n\n(cancelled)"
	}
	return v.Question + "\n\n(could not be asked)"
}

// maxCardDiagnostics caps the problems a diff card's text lists.
const maxCardDiagnostics = 20

// consoleBlock is a finished command for clients without terminals: the
// output (trailing newlines trimmed) and its exit status in a console block.
func consoleBlock(v *card.TerminalResult) string {
	text := strings.TrimRight(v.Output, "\n")
	status := ""
	switch {
	case v.Signal != "":
		status = "[killed by signal: " + v.Signal + "]"
	case v.ExitCode != nil:
		status = "[exit code: " + strconv.Itoa(*v.ExitCode) + "]"
	}
	if status != "" {
		if text != "" {
			text += "\n"
		}
		text += status
	}
	return fenced("console", text)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func matchesText(v *card.SearchMatches) string {
	shown := 0
	for _, f := range v.Files {
		shown += len(f.Matches)
	}
	var b strings.Builder
	if v.Total == 0 && shown == 0 {
		return "No matches found"
	}
	b.WriteString("Found " + plural(v.Total, "match", "matches"))
	if v.Truncated || shown < v.Total {
		fmt.Fprintf(&b, " (showing %d; truncated)", shown)
	}
	for _, f := range v.Files {
		b.WriteString("\n\n" + f.Path)
		for _, m := range f.Matches {
			fmt.Fprintf(&b, "\nLine %d: %s", m.LineNumber, m.Line)
		}
	}
	return b.String()
}

func pathsText(v *card.SearchPaths) string {
	if v.Total == 0 && len(v.Paths) == 0 {
		return "No files found"
	}
	var b strings.Builder
	b.WriteString("Found " + plural(v.Total, "file", "files"))
	if v.Truncated || len(v.Paths) < v.Total {
		fmt.Fprintf(&b, " (showing %d; truncated)", len(v.Paths))
	}
	for _, p := range v.Paths {
		b.WriteString("\n- " + p)
	}
	return b.String()
}

// textOrSummary is a search result's standard text, or for a client that
// renders the card (which lists the same matches or paths) its first line.
func (e Env) textOrSummary(text string) string {
	if !e.Cards {
		return text
	}
	first, _, _ := strings.Cut(text, "\n")
	return first
}

// readSummary is a read's standard content for a client that renders the
// card, which carries the lines: which lines of the file were read.
func readSummary(v *card.Read, path string) string {
	if len(v.Lines) == 0 {
		return readText(v, path)
	}
	return fmt.Sprintf("%s: lines %d-%d of %d.", path, v.Lines[0].Number, v.Lines[len(v.Lines)-1].Number, v.TotalLines)
}

// readText is the read window as a fenced code block in the file's
// language, each line prefixed with the file's own line number.
func readText(v *card.Read, path string) string {
	if len(v.Lines) == 0 {
		return fmt.Sprintf("%s: no lines from line %d (%s in the file)", path, v.Offset, plural(v.TotalLines, "line", "lines"))
	}
	width := len(strconv.Itoa(v.Lines[len(v.Lines)-1].Number))
	var b strings.Builder
	for i, l := range v.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		num := strconv.Itoa(l.Number)
		b.WriteString(strings.Repeat(" ", width-len(num)) + num + "  " + l.Text)
	}
	body := fenced(highlight.FenceLanguage(path, v.Lang), b.String())
	last := v.Lines[len(v.Lines)-1].Number
	if last < v.TotalLines {
		body += fmt.Sprintf("\n\nLines %d-%d of %d.", v.Lines[0].Number, last, v.TotalLines)
	}
	return body
}

func webSearchText(v *card.WebSearch) string {
	var b strings.Builder
	if v.Answer != "" {
		b.WriteString(v.Answer + "\n\n")
	}
	b.WriteString("Sources:")
	for _, s := range v.Sources {
		label := s.Title
		if label == "" {
			label = s.URL
		}
		b.WriteString("\n- [" + label + "](" + s.URL + ")")
		if s.Snippet != "" {
			b.WriteString(" — " + s.Snippet)
		}
		if s.PublishedAt != "" {
			b.WriteString(" (" + s.PublishedAt + ")")
		}
	}
	if v.Truncated {
		b.WriteString("\n(more sources were found than are shown)")
	}
	return b.String()
}

func webFetchText(v *card.WebFetch) string {
	s := fmt.Sprintf("Fetched %s (HTTP %d)", v.URL, v.StatusCode)
	if v.Truncated {
		s += "; the body was truncated"
	}
	return s
}
