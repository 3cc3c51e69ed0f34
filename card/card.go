package card

import (
	"strconv"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Kind is the ACP ToolCallKind a generic card uses to choose an icon.
type Kind string

// The tool call kinds (contract §3). KindOther is the default.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindFetch   Kind = "fetch"
	KindThink   Kind = "think"
	KindOther   Kind = "other"
)

// FileLocation is a file a call reads or changes, for editors to follow.
// Line is 1-based; 0 means no line.
type FileLocation struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// FileDiff is one file's change. OldText is nil for a new file (and for a
// call-time overwrite, whose prior content a pure presenter cannot see).
// StartLine (our extension; 0 means 1) is the file line the texts start
// at, when they are an excerpt such as an applied hunk with its context.
type FileDiff struct {
	Path      string  `json:"path"`
	OldText   *string `json:"oldText"`
	NewText   string  `json:"newText"`
	StartLine int     `json:"startLine,omitempty"`
}

// ReadFileLine is one line of a read window: the file's own 1-based line
// number and the line's (already truncated) text without its newline.
type ReadFileLine struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

// ReadLines is a read window's lines. It writes itself as JSON in one
// loop: a 2,000-line window is the largest card most turns send.
type ReadLines []ReadFileLine

// AppendJSON writes the lines as [{"number":n,"text":"…"},…].
func (ls ReadLines) AppendJSON(dst []byte) ([]byte, error) {
	if ls == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, l := range ls {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"number":`...)
		dst = strconv.AppendInt(dst, int64(l.Number), 10)
		dst = append(dst, `,"text":`...)
		dst = jsonv.AppendString(dst, l.Text)
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// readLineKeys are every line object's keys, shared (Values never change
// their keys).
var readLineKeys = []string{"number", "text"}

// JSONValue builds the lines' Value in a few allocations (the typed read
// output is converted for every read); false for text that is not valid
// UTF-8, which the reflective walk replaces.
func (ls ReadLines) JSONValue() (jsonv.Value, bool) {
	if ls == nil {
		return jsonv.NullValue(), true
	}
	b := jsonv.NewBlock(3*len(ls) + 1)
	vals := make([]jsonv.Value, 3*len(ls)) // two members per line, then the lines
	items := vals[2*len(ls):]
	for i, l := range ls {
		m := vals[2*i : 2*i+2 : 2*i+2]
		m[0] = b.Int(int64(l.Number))
		text, ok := b.String(l.Text)
		if !ok {
			return jsonv.Value{}, false
		}
		m[1] = text
		o, err := b.Object(readLineKeys, m)
		if err != nil {
			return jsonv.Value{}, false
		}
		items[i] = o
	}
	return b.Array(items), true
}

// SearchLineMatch is one grep hit.
type SearchLineMatch struct {
	LineNumber int    `json:"lineNumber"`
	Line       string `json:"line"`
}

// SearchFileMatches groups one file's hits, in first-seen file order.
type SearchFileMatches struct {
	Path    string            `json:"path"`
	Matches []SearchLineMatch `json:"matches"`
}

// WebSource is one web search source.
type WebSource struct {
	URL         string `json:"url"`
	Title       string `json:"title,omitempty"`
	Snippet     string `json:"snippet,omitempty"`
	PublishedAt string `json:"publishedAt,omitempty"`
}

// CallView is the closed union of pending-state cards: *Generic, *Terminal,
// *Diff and *Question. Switch on it exhaustively.
type CallView interface {
	callView()
}

// ResultView is the closed union of completed-state cards: *GenericResult,
// *TerminalResult, *DiffResult, *SearchMatches, *SearchPaths, *Read,
// *WebSearch, *WebFetch and *Answer. A result view replaces the pending
// view.
type ResultView interface {
	resultView()
}

// Generic is the default pending card.
type Generic struct {
	Title    string `json:"title"`
	Kind     Kind   `json:"kind,omitempty"`
	RawInput any    `json:"rawInput,omitempty"` // a string is shown as-is, anything else as pretty JSON
	// Lang is the language of a string RawInput (a program), for
	// highlighting; our extension of the vocabulary.
	Lang      string         `json:"lang,omitempty"`
	Content   []Content      `json:"content,omitempty"`
	Locations []FileLocation `json:"locations,omitempty"`
}

// Terminal is the pending card of a shell command.
type Terminal struct {
	Title       string `json:"title"` // the command
	Description string `json:"description,omitempty"`
	Cwd         string `json:"cwd,omitempty"` // relative: against the session workspace; empty: the workspace
}

// Diff is the pending card of a file creation or change.
type Diff struct {
	Title     string         `json:"title"`
	Diffs     []FileDiff     `json:"diffs"`
	Locations []FileLocation `json:"locations,omitempty"`
	// Proposal says the diffs are the call's change against the file as
	// it was read when the call was announced (a live preview), so their
	// hunks are exactly what the call proposes to apply; a card of the
	// arguments alone is no proposal. Not part of the wire card.
	Proposal bool `json:"-"`
}

// GenericResult is the default completed card; nil Content means "show the
// raw result content".
type GenericResult struct {
	Title   string    `json:"title,omitempty"`
	Content []Content `json:"content,omitempty"`
}

// TerminalResult is a finished command: output and at most one of ExitCode
// and Signal (neither: no exit pill).
type TerminalResult struct {
	Title    string `json:"title,omitempty"`
	Output   string `json:"output,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Signal   string `json:"signal,omitempty"`
}

// DiffResult is the applied change: hunks with context, or a whole-file diff.
type DiffResult struct {
	Title string     `json:"title,omitempty"`
	Diffs []FileDiff `json:"diffs"`
	// Diagnostics are the errors and warnings a language server reported
	// in the changed file after the change (none: it reported none, or no
	// server checks the file).
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// SearchMatches is a grep result, grouped by file. It carries no result text.
type SearchMatches struct {
	Title     string              `json:"title,omitempty"`
	Files     []SearchFileMatches `json:"files"`
	Truncated bool                `json:"truncated"`
	Total     int                 `json:"total"`
}

// SearchPaths is a glob result. It carries no result text.
type SearchPaths struct {
	Title     string   `json:"title,omitempty"`
	Paths     []string `json:"paths"`
	Truncated bool     `json:"truncated"`
	Total     int      `json:"total"`
}

// Read is a file read window. Offset is the requested 1-based first line,
// kept even when Lines is empty; Lang is a highlighting hint; Content is the
// text without its envelope, for UIs without a read card.
type Read struct {
	Title      string    `json:"title,omitempty"`
	Path       string    `json:"path"`
	Offset     int       `json:"offset"`
	Lines      ReadLines `json:"lines"`
	TotalLines int       `json:"totalLines"`
	Lang       string    `json:"lang,omitempty"`
	Content    string    `json:"content,omitempty"`
}

// WebSearch is a web search result. It carries no content copy.
type WebSearch struct {
	Title     string      `json:"title,omitempty"`
	Sources   []WebSource `json:"sources"`
	Answer    string      `json:"answer,omitempty"`
	Truncated bool        `json:"truncated"`
}

// WebFetch is a fetched page. It carries no content copy.
type WebFetch struct {
	Title      string `json:"title,omitempty"`
	URL        string `json:"url"`
	StatusCode int    `json:"statusCode"`
	Truncated  bool   `json:"truncated"`
}

// Question is the pending card of a question put to the person: its text
// and the choices offered (none: a free answer).
type Question struct {
	Title    string   `json:"title"`
	Question string   `json:"question"`
	Choices  []string `json:"choices,omitempty"`
}

// Answer is a question's outcome: "answered" with the person's Answer,
// "declined", "cancelled" or "unavailable" (the question could not be
// put).
type Answer struct {
	Title    string `json:"title,omitempty"`
	Question string `json:"question"`
	Outcome  string `json:"outcome"`
	Answer   string `json:"answer,omitempty"`
}

func (*Question) callView() {}
func (*Answer) resultView() {}

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *Question) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "question")
}

// MarshalJSON emits the card with its "card" tag.
func (c *Question) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *Answer) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "question")
}

// MarshalJSON emits the card with its "card" tag.
func (c *Answer) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

func (*Generic) callView()  {}
func (*Terminal) callView() {}
func (*Diff) callView()     {}

func (*GenericResult) resultView()  {}
func (*TerminalResult) resultView() {}
func (*DiffResult) resultView()     {}
func (*SearchMatches) resultView()  {}
func (*SearchPaths) resultView()    {}
func (*Read) resultView()           {}
func (*WebSearch) resultView()      {}
func (*WebFetch) resultView()       {}

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *Generic) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "generic")
}

// MarshalJSON emits the card with its "card" tag.
func (c *Generic) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *Terminal) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "terminal")
}

// MarshalJSON emits the card with its "card" tag.
func (c *Terminal) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *Diff) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "diff")
}

// MarshalJSON emits the card with its "card" tag.
func (c *Diff) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *GenericResult) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "generic")
}

// MarshalJSON emits the card with its "card" tag.
func (c *GenericResult) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *TerminalResult) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "terminal")
}

// MarshalJSON emits the card with its "card" tag.
func (c *TerminalResult) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *DiffResult) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "diff")
}

// MarshalJSON emits the card with its "card" tag.
func (c *DiffResult) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" and "shape" tags, in one pass.
func (c *SearchMatches) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "search", "shape", "matches")
}

// MarshalJSON emits the card with its "card" and "shape" tags.
func (c *SearchMatches) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" and "shape" tags, in one pass.
func (c *SearchPaths) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "search", "shape", "paths")
}

// MarshalJSON emits the card with its "card" and "shape" tags.
func (c *SearchPaths) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" tag, in one pass.
func (c *Read) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "read")
}

// MarshalJSON emits the card with its "card" tag.
func (c *Read) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" and "kind" tags, in one pass.
func (c *WebSearch) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "web", "kind", "search")
}

// MarshalJSON emits the card with its "card" and "kind" tags.
func (c *WebSearch) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON writes the card with its "card" and "kind" tags, in one pass.
func (c *WebFetch) AppendJSON(dst []byte) ([]byte, error) {
	return jsonv.AppendTagged(dst, c, "card", "web", "kind", "fetch")
}

// MarshalJSON emits the card with its "card" and "kind" tags.
func (c *WebFetch) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }
