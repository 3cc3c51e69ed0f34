package views

import (
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
	"go.lsp.dev/protocol"
)

// Line is one line of a hunk. Text keeps the line's own terminator ("\n",
// "\r\n", or none for a last line without one), so hunks are lossless.
type Line struct {
	Op   string `json:"op"` // " " context, "-" removed, "+" added
	Text string `json:"text"`
}

// Hunk is one unified-diff hunk. Starts are 1-based line numbers; a start
// of 0 with 0 lines means "before the first line" (GNU diff's convention).
type Hunk struct {
	OldStart int    `json:"oldStart"`
	OldLines int    `json:"oldLines"`
	NewStart int    `json:"newStart"`
	NewLines int    `json:"newLines"`
	Lines    []Line `json:"lines"`
}

// FileChange is one file's change as hunks and, equivalently, as LSP text
// edits (ranges in UTF-16 code units, against the old text).
type FileChange struct {
	Path      string              `json:"path"`
	Hunks     []Hunk              `json:"hunks"`
	Edits     []protocol.TextEdit `json:"edits"`
	Truncated bool                `json:"truncated,omitempty"`
}

const (
	contextLines = 3
	// MaxHunkLines caps the lines a change may carry; past it the change is
	// cut at a hunk boundary and marked truncated (the edits stay complete).
	MaxHunkLines = 20000
	diffTimeout  = 2 * time.Second
)

// op is one run of the line diff: its kind, how many lines it covers, and
// (for insertions and deletions) the lines themselves.
type op struct {
	kind  diffmatchpatch.Operation
	n     int
	lines []string
}

// splitLines splits text after each "\n"; a last line without one stays.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineDiff computes a line-level diff with go-diff's line-to-rune encoding,
// so the Myers diff runs over one rune per line. The timeout keeps
// pathological inputs bounded: go-diff then returns a valid, coarser diff.
func lineDiff(oldText, newText string) []op {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	a, b, lineArray := dmp.DiffLinesToRunes(oldText, newText)
	diffs := dmp.DiffMainRunes(a, b, false)
	ops := make([]op, 0, len(diffs))
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		var lines []string
		if d.Type != diffmatchpatch.DiffEqual {
			lines = make([]string, 0, n)
			for _, r := range d.Text {
				lines = append(lines, lineArray[r])
			}
		}
		if k := len(ops); k > 0 && ops[k-1].kind == d.Type {
			ops[k-1].n += n
			ops[k-1].lines = append(ops[k-1].lines, lines...)
			continue
		}
		ops = append(ops, op{kind: d.Type, n: n, lines: lines})
	}
	return ops
}

// Change computes the unified hunks (3 lines of context) and LSP text edits
// that turn oldText into newText. Identical texts give no hunks. Work and
// memory are linear in the size of the change plus the number of lines,
// apart from go-diff's time-bounded Myers step.
func Change(path, oldText, newText string) FileChange {
	fc := FileChange{Path: path, Hunks: []Hunk{}, Edits: []protocol.TextEdit{}}
	if oldText == newText {
		return fc
	}
	ops := lineDiff(oldText, newText)
	blocks := changeBlocks(ops)
	old := splitLines(oldText)
	fc.Edits = textEdits(blocks, old)
	fc.Hunks, fc.Truncated = hunks(blocks, old)
	return fc
}

// block is one run of removed and added lines, at 0-based line indexes.
type block struct {
	o, n     int
	del, ins []string
}

func changeBlocks(ops []op) []block {
	var out []block
	o, n := 0, 0
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == diffmatchpatch.DiffEqual {
			o += ops[i].n
			n += ops[i].n
			continue
		}
		b := block{o: o, n: n}
		for ; i < len(ops) && ops[i].kind != diffmatchpatch.DiffEqual; i++ {
			if ops[i].kind == diffmatchpatch.DiffDelete {
				b.del = append(b.del, ops[i].lines...)
			} else {
				b.ins = append(b.ins, ops[i].lines...)
			}
		}
		i--
		o += len(b.del)
		n += len(b.ins)
		out = append(out, b)
	}
	return out
}

// hunks groups change blocks into hunks with up to three lines of context,
// merging blocks whose contexts would touch or overlap.
func hunks(blocks []block, old []string) ([]Hunk, bool) {
	var out []Hunk
	total := 0
	for i := 0; i < len(blocks); {
		j := i // the hunk covers blocks[i..j]
		for j+1 < len(blocks) && blocks[j+1].o-(blocks[j].o+len(blocks[j].del)) <= 2*contextLines {
			j++
		}
		first, last := blocks[i], blocks[j]
		before := min(contextLines, first.o)
		lastEnd := last.o + len(last.del)
		after := min(contextLines, len(old)-lastEnd)
		h := Hunk{OldStart: first.o - before + 1, NewStart: first.n - before + 1}
		add := func(op string, lines []string) {
			for _, l := range lines {
				h.Lines = append(h.Lines, Line{op, l})
			}
		}
		add(" ", old[first.o-before:first.o])
		for k := i; k <= j; k++ {
			add("-", blocks[k].del)
			add("+", blocks[k].ins)
			if k < j {
				add(" ", old[blocks[k].o+len(blocks[k].del):blocks[k+1].o])
			}
		}
		add(" ", old[lastEnd:lastEnd+after])
		for _, l := range h.Lines {
			if l.Op != "+" {
				h.OldLines++
			}
			if l.Op != "-" {
				h.NewLines++
			}
		}
		if h.OldLines == 0 {
			h.OldStart-- // GNU: an insertion hunk starts at the line before
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		if total+len(h.Lines) > MaxHunkLines {
			return out, true
		}
		total += len(h.Lines)
		out = append(out, h)
		i = j + 1
	}
	return out, false
}

// textEdits converts change blocks into LSP edits against the old text,
// one per block, whole lines replaced.
func textEdits(blocks []block, old []string) []protocol.TextEdit {
	edits := make([]protocol.TextEdit, 0, len(blocks))
	prev := func(i int) string {
		if i == 0 {
			return ""
		}
		return old[i-1]
	}
	for _, b := range blocks {
		end := b.o + len(b.del)
		edits = append(edits, protocol.TextEdit{
			Range:   protocol.Range{Start: position(b.o, prev(b.o)), End: position(end, prev(end))},
			NewText: strings.Join(b.ins, ""),
		})
	}
	return edits
}

// position is the LSP position of the start of 0-based line index, where
// prev is the line before it: after a last line without a newline, the
// position is the end of that line instead.
func position(index int, prev string) protocol.Position {
	if index > 0 && !strings.HasSuffix(prev, "\n") {
		return protocol.Position{Line: uint32(index - 1), Character: uint32(utf16Len(prev))}
	}
	return protocol.Position{Line: uint32(index)}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 && utf8.ValidRune(r) {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// utf16Offset converts a UTF-16 column in line s to a byte offset.
func utf16Offset(s string, col int) int {
	units := 0
	for i, r := range s {
		if units >= col {
			return i
		}
		units += len(utf16.Encode([]rune{r}))
	}
	return len(s)
}
