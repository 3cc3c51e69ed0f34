package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/views"
)

// HunkSelection is a partial approval of an edit or a write: of the hunks
// its pending card proposed (views.ProposedHunks), the ones the person
// accepted. A call whose context carries one ([WithHunkSelection]) applies
// the accepted hunks alone, to the file as it is when the call runs, and
// tells the model which hunks it applied and which the person rejected.
type HunkSelection struct {
	Path     string       // absolute: the file the hunks change
	Hunks    []views.Hunk // every hunk proposed, in the card's order
	Accepted []int        // indices into Hunks, ascending, unique, at least one
}

// Errors of [NewHunkSelection]: an editor's selection that cannot be a
// partial approval of the proposal.
var (
	ErrNoHunks      = errors.New("the call proposes no hunks to choose from")
	ErrHunkRange    = errors.New("hunk index out of range")
	ErrHunkRepeated = errors.New("hunk index given twice")
	ErrNoneAccepted = errors.New("no hunk accepted")
)

// NewHunkSelection checks accepted (indices into hunks, in any order) and
// returns the selection, its indices sorted. Every index must be in range
// and given once, and at least one given; hunks must not be empty.
func NewHunkSelection(path string, hunks []views.Hunk, accepted []int) (HunkSelection, error) {
	if len(hunks) == 0 {
		return HunkSelection{}, ErrNoHunks
	}
	if len(accepted) == 0 {
		return HunkSelection{}, ErrNoneAccepted
	}
	sorted := slices.Clone(accepted)
	slices.Sort(sorted)
	for i, k := range sorted {
		if k < 0 || k >= len(hunks) {
			return HunkSelection{}, fmt.Errorf("%w: %d (the proposal has %d hunks, 0 to %d)", ErrHunkRange, k, len(hunks), len(hunks)-1)
		}
		if i > 0 && sorted[i-1] == k {
			return HunkSelection{}, fmt.Errorf("%w: %d", ErrHunkRepeated, k)
		}
	}
	return HunkSelection{Path: path, Hunks: hunks, Accepted: sorted}, nil
}

type hunkSelectionKey struct{}

// WithHunkSelection returns ctx carrying s to the edit or write it runs.
func WithHunkSelection(ctx context.Context, s HunkSelection) context.Context {
	return context.WithValue(ctx, hunkSelectionKey{}, s)
}

func hunkSelectionFrom(ctx context.Context) (HunkSelection, bool) {
	s, ok := ctx.Value(hunkSelectionKey{}).(HunkSelection)
	return s, ok
}

// partialValue is what a partially approved call applied and what the
// person rejected, in its durable value.
type partialValue struct {
	Proposed int            `json:"proposed"` // how many hunks were proposed
	Applied  []int          `json:"applied"`  // indices of the hunks applied
	Rejected []rejectedHunk `json:"rejected"`
}

type rejectedHunk struct {
	Index  int    `json:"index"`
	Header string `json:"header"` // @@ -a,b +c,d @@, in the file's numbering before the change
	Text   string `json:"text"`   // its removed and added lines, capped
}

// Caps of a rejected hunk's text in the model's result.
const (
	rejectedLines    = 40
	rejectedLineLen  = 200
	rejectedTotalLen = 8 << 10
)

// applySelection applies the accepted hunks of s to before, the file at
// path (absolute) as it is now. Each hunk must match the file where it
// was proposed (its context and removed lines, without fuzz): a file
// changed there since the proposal fails with FS_STALE_VERSION, and
// nothing is to be written. The selection's path (the card's) and path
// (the tool's) are compared cleaned: the card keeps an absolute path as
// the model wrote it ("/ws/./a.txt"), the tool resolves it.
func applySelection(s HunkSelection, path, before string) (string, *partialValue, error) {
	if filepath.Clean(s.Path) != filepath.Clean(path) {
		return "", nil, fsError("FS_STALE_VERSION", fmt.Sprintf("the approved hunks change %q, not %q; nothing was written", s.Path, path))
	}
	accepted := make([]views.Hunk, len(s.Accepted))
	for i, k := range s.Accepted {
		accepted[i] = s.Hunks[k]
	}
	after, err := views.ApplyHunks(before, accepted)
	if err != nil {
		return "", nil, fsError("FS_STALE_VERSION", fmt.Sprintf("the approved hunks no longer apply to %q: the file changed since the change was proposed (%v); nothing was written. Re-read the file, then retry", path, err))
	}
	p := &partialValue{Proposed: len(s.Hunks), Applied: slices.Clone(s.Accepted), Rejected: []rejectedHunk{}}
	for k, h := range s.Hunks {
		if !slices.Contains(s.Accepted, k) {
			p.Rejected = append(p.Rejected, rejectedHunk{Index: k, Header: hunkHeader(h), Text: changedLines(h)})
		}
	}
	return after, p, nil
}

func hunkHeader(h views.Hunk) string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
}

// changedLines is a hunk's removed and added lines (its context left
// out), each cut at rejectedLineLen bytes, at most rejectedLines of them.
func changedLines(h views.Hunk) string {
	var b strings.Builder
	n := 0
	for _, l := range h.Lines {
		if l.Op == " " {
			continue
		}
		if n++; n > rejectedLines {
			continue
		}
		text := strings.TrimRight(l.Text, "\r\n")
		if len(text) > rejectedLineLen {
			text = truncateUTF8(text, rejectedLineLen) + "…"
		}
		b.WriteString(l.Op + text + "\n")
	}
	if n > rejectedLines {
		fmt.Fprintf(&b, "… (%d more changed lines)\n", n-rejectedLines)
	}
	return b.String()
}

// truncateUTF8 is s cut to at most n bytes, never inside a character.
func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// partialText is what the model is told of a partial approval.
func (p *partialValue) text(path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The user approved %d of the %d proposed hunks of the change to %s: only those were applied (hunk %s).", len(p.Applied), p.Proposed, path, numbers(p.Applied))
	b.WriteString(" The user rejected these hunks, which were not applied (line numbers of the file before the change):")
	total := 0
	for i, r := range p.Rejected {
		entry := fmt.Sprintf("\nhunk %d %s\n%s", r.Index+1, r.Header, strings.TrimSuffix(r.Text, "\n"))
		if total += len(entry); total > rejectedTotalLen {
			fmt.Fprintf(&b, "\n… (%d more rejected hunks)", len(p.Rejected)-i)
			break
		}
		b.WriteString(entry)
	}
	return b.String()
}

// numbers lists indices as 1-based hunk numbers: "1, 3".
func numbers(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k + 1)
	}
	return strings.Join(s, ", ")
}
