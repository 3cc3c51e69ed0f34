package views

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"go.lsp.dev/protocol"
)

// ApplyHunks applies hunks (as [Change] produces them) to oldText. It checks
// every context and removed line against the text and fails on a mismatch,
// like patch without fuzz.
func ApplyHunks(oldText string, hunks []Hunk) (string, error) {
	lines := splitLines(oldText)
	var b strings.Builder
	next := 0 // 0-based index of the next old line to copy
	for hi, h := range hunks {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart // insertion after line OldStart
		}
		if start < next || start > len(lines) {
			return "", fmt.Errorf("hunk %d: old start %d out of order or range", hi, h.OldStart)
		}
		for _, l := range lines[next:start] {
			b.WriteString(l)
		}
		next = start
		for _, l := range h.Lines {
			switch l.Op {
			case " ", "-":
				if next >= len(lines) || lines[next] != l.Text {
					return "", fmt.Errorf("hunk %d: line %d does not match", hi, next+1)
				}
				if l.Op == " " {
					b.WriteString(l.Text)
				}
				next++
			case "+":
				b.WriteString(l.Text)
			default:
				return "", fmt.Errorf("hunk %d: unknown op %q", hi, l.Op)
			}
		}
	}
	for _, l := range lines[next:] {
		b.WriteString(l)
	}
	return b.String(), nil
}

// ApplyEdits applies LSP text edits (non-overlapping, positions in UTF-16
// code units against text) and returns the result.
func ApplyEdits(text string, edits []protocol.TextEdit) (string, error) {
	starts := []int{0} // byte offset of each line start
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	offset := func(p protocol.Position) (int, error) {
		if int(p.Line) >= len(starts) {
			return 0, fmt.Errorf("line %d beyond the text", p.Line)
		}
		lineStart := starts[p.Line]
		lineEnd := len(text)
		if int(p.Line)+1 < len(starts) {
			lineEnd = starts[p.Line+1]
		}
		return lineStart + utf16Offset(text[lineStart:lineEnd], int(p.Character)), nil
	}
	type span struct {
		from, to int
		text     string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		from, err := offset(e.Range.Start)
		if err != nil {
			return "", err
		}
		to, err := offset(e.Range.End)
		if err != nil {
			return "", err
		}
		if to < from {
			return "", fmt.Errorf("edit range ends before it starts")
		}
		spans = append(spans, span{from, to, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.from < pos {
			return "", fmt.Errorf("overlapping edits")
		}
		b.WriteString(text[pos:s.from])
		b.WriteString(s.text)
		pos = s.to
	}
	b.WriteString(text[pos:])
	return b.String(), nil
}

// ProposedHunks returns the hunks a pending diff card proposes for its
// one file, in the order and with the line numbers of the card's
// `changes` (its entries' hunks one after the other), and the file's
// absolute path. ok is false unless the card is a [card.Diff] proposal
// (card.Diff.Proposal) of a single file with at least one hunk and none
// left out (no truncated change).
func ProposedHunks(env Env, view card.CallView) (path string, hunks []Hunk, ok bool) {
	d, isDiff := view.(*card.Diff)
	if !isDiff || d == nil || !d.Proposal || len(d.Diffs) == 0 {
		return "", nil, false
	}
	for _, fc := range changes(env, d.Diffs) {
		if fc.Truncated || (path != "" && fc.Path != path) {
			return "", nil, false
		}
		path = fc.Path
		hunks = append(hunks, fc.Hunks...)
	}
	return path, hunks, len(hunks) > 0
}
