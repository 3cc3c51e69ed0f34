package model

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// MessageBytes is the size a message adds to a request, near enough to
// estimate tokens from: its text, reasoning (where it is sent), tool calls
// and a little framing.
func MessageBytes(m *Message) int {
	n := 16 + len(m.Content) + len(m.ToolCallID)
	if len(m.ToolCalls) > 0 {
		n += len(m.Reasoning)
	}
	for _, tc := range m.ToolCalls {
		n += 40 + len(tc.ID) + len(tc.Name) + len(tc.Arguments)
	}
	return n
}

// HistoryBytes sums MessageBytes over msgs.
func HistoryBytes(msgs []Message) int {
	n := 0
	for i := range msgs {
		n += MessageBytes(&msgs[i])
	}
	return n
}

// ShrinkToolResults replaces old tool results by placeholders until the
// results left weigh at most keep bytes, newest first. A result is seen
// once any assistant message follows it, with or without tool calls; the
// results after the last assistant message are unseen and always kept
// (they count against keep). It returns the new history (msgs is not
// modified) and the ids of the calls whose results were replaced, oldest
// first.
func ShrinkToolResults(msgs []Message, keep int) ([]Message, []string) {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			last = i
			break
		}
	}
	var ids []string
	kept := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != "tool" || isPlaceholder(m.Content) {
			continue
		}
		if i > last {
			kept += len(m.Content)
			continue
		}
		if kept+len(m.Content) <= keep {
			kept += len(m.Content)
			continue
		}
		ids = append(ids, m.ToolCallID)
	}
	if len(ids) == 0 {
		return msgs, nil
	}
	slices.Reverse(ids)
	return ApplyShrink(msgs, ids), ids
}

const placeholderPrefix = "[The result of this tool call was removed to save context"

func isPlaceholder(s string) bool { return strings.HasPrefix(s, placeholderPrefix) }

// ApplyShrink replaces the results of the given calls by placeholders that
// name the call; msgs is not modified.
func ApplyShrink(msgs []Message, ids []string) []Message {
	out := slices.Clone(msgs)
	calls := map[string]ToolCall{}
	for i := range out {
		for _, tc := range out[i].ToolCalls {
			calls[tc.ID] = tc
		}
		m := &out[i]
		if m.Role != "tool" || !slices.Contains(ids, m.ToolCallID) || isPlaceholder(m.Content) {
			continue
		}
		tc := calls[m.ToolCallID]
		*m = Message{Role: "tool", ToolCallID: m.ToolCallID, Content: fmt.Sprintf(
			"%s: %s(%s) returned %d bytes. The session log keeps it; call the tool again if you need it.]",
			placeholderPrefix, tc.Name, clip(tc.Arguments, 200), len(m.Content))}
	}
	return out
}

// TurnEnds lists the indices k at which msgs[:k] is a run of complete
// turns: just after an assistant message that made no tool call.
func TurnEnds(msgs []Message) []int {
	var ends []int
	for i := range msgs {
		if msgs[i].Role == "assistant" && len(msgs[i].ToolCalls) == 0 && i+1 < len(msgs) {
			ends = append(ends, i+1)
		}
	}
	return ends
}

// Summarised is the history after a summary replaced its first messages: a
// user message holding the summary, a short assistant acknowledgement (so
// that roles keep alternating), then rest.
func Summarised(summary string, rest []Message) []Message {
	out := make([]Message, 0, len(rest)+2)
	out = append(out,
		Message{Role: "user", Content: "Summary of the earlier part of this conversation (compacted to fit the context window):\n\n" + summary},
		Message{Role: "assistant", Content: "Understood. I will continue from that summary."})
	return append(out, rest...)
}

// Transcript renders messages as plain text for a summary request, at
// most about max bytes: long texts and tool results are clipped, and when
// the whole is still too long its oldest part is dropped.
func Transcript(msgs []Message, max int) string {
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case "user":
			parts = append(parts, "User: "+clip(m.Content, 4000))
		case "assistant":
			s := "Assistant: " + clip(m.Content, 4000)
			for _, tc := range m.ToolCalls {
				s += fmt.Sprintf("\n  [calls %s(%s)]", tc.Name, clip(tc.Arguments, 300))
			}
			parts = append(parts, s)
		case "tool":
			parts = append(parts, "Tool result: "+clip(m.Content, 1500))
		}
	}
	total := 0
	for i := len(parts) - 1; i >= 0; i-- {
		total += len(parts[i]) + 2
		if total > max {
			return "[…earlier messages omitted…]\n\n" + strings.Join(parts[i+1:], "\n\n")
		}
	}
	return strings.Join(parts, "\n\n")
}

// TitlePrompt is the system prompt of a title request: the request a
// session makes once, after its first exchange, to name itself. It is
// also the request's marker: a fake model (Script among them) that sees
// it answers with a title instead of a conversation turn.
const TitlePrompt = `You name a coding agent's conversation for a list of past sessions. Reply with a title of two to six words that says what the user wants done, in the user's language: no quotes, no trailing punctuation, nothing else.`

// IsTitleRequest reports whether req is a title request (TitlePrompt).
func IsTitleRequest(req Request) bool { return req.System == TitlePrompt }

// SummaryPrompt is the system prompt of a summary request.
const SummaryPrompt = `You compact a coding agent's conversation so that it can go on within its context window. Summarise the transcript you are given for the agent itself: the user's goals and instructions, decisions made, files read and changed (with paths), commands run and their outcomes, errors met, and what remains to do. Keep exact names, paths and identifiers. Write plain prose and short lists, at most about 600 words. Do not address the user.`

// clip shortens s to about n bytes at a rune boundary, saying how much was
// left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…[%d more bytes]", s[:cut], len(s)-cut)
}

// CapToolResult bounds one tool result at its source: past max bytes the
// middle is dropped (the start and the end usually matter most) with a
// note on how to see the rest.
func CapToolResult(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	head := max * 4 / 5
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	tail := len(s) - (max - head)
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s\n\n[… %d of %d bytes omitted here: this result is too long for the model's context. "+
		"Read the rest in parts (read with offset and limit), narrow the search (a more specific grep pattern or path), "+
		"or filter the command's output (head, tail, grep).]\n\n%s", s[:head], tail-head, len(s), s[tail:])
}
