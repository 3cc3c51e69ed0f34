package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// The operations of Query.
const (
	OpDefinition       = "definition"
	OpReferences       = "references"
	OpHover            = "hover"
	OpDocumentSymbols  = "document_symbols"
	OpWorkspaceSymbols = "workspace_symbols"
)

// Caps of a Query's answer, the server's text: each name and path is
// cleaned to one line (cleanText), a hover keeps its lines (cleanLines).
const (
	maxAnswer      = 200      // lines
	maxAnswerBytes = 32 << 10 // the whole answer
	maxNameBytes   = 200      // a symbol's name, or its container's
	maxHoverBytes  = 16 << 10
	maxIndent      = 8  // nesting levels a symbol list shows
	answerTail     = 80 // room for the answer's last lines: how many more, how many left out
)

// ErrPosition wraps the refusal of a line or column outside the file.
var ErrPosition = errors.New("no such position")

// Query asks path's server (path holds text; line and col are 1-based,
// col in characters) one of the Op questions; query is
// workspace_symbols' search text. The answer is text for the model,
// capped (maxAnswer lines, maxAnswerBytes): locations as path:line:col,
// one a line, the column in characters in path itself, in UTF-16 units
// plus one in other files (their text is not read here); locations that
// are not local files are left out, and said. A line or column outside
// text is refused (ErrPosition) for the questions at a position.
func (m *Manager) Query(ctx context.Context, op, path, text string, line, col int, query string) (string, error) {
	if op == OpDefinition || op == OpReferences || op == OpHover {
		if err := checkPosition(text, line, col); err != nil {
			return "", err
		}
	}
	s := m.server(path)
	if s == nil {
		return "", fmt.Errorf("%w for %s", ErrNoServer, path)
	}
	if err := s.withConn(ctx, func() error { _, err := s.sync(ctx, path, text); return err }); err != nil {
		return "", err
	}
	doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
	line = max(line, 1) // checked above when it is used
	pos := protocol.Position{Line: uint32(line - 1), Character: toUTF16(lineText(text, line-1), col)}
	pl := placer{path: path, text: text, form: workspace.FormOf(runtime.GOOS)}
	at := protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos}
	var raw json.RawMessage
	switch op {
	case OpDefinition:
		if err := s.call(ctx, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: at}, &raw); err != nil {
			return "", err
		}
		return answer(pl.locations(raw), "No definition found."), nil
	case OpReferences:
		p := &protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
		if err := s.call(ctx, protocol.MethodTextDocumentReferences, p, &raw); err != nil {
			return "", err
		}
		return answer(pl.locations(raw), "No references found."), nil
	case OpHover:
		if err := s.call(ctx, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: at}, &raw); err != nil {
			return "", err
		}
		if h := cleanLines(hoverText(raw), maxHoverBytes); h != "" {
			return h, nil
		}
		return "No hover information.", nil
	case OpDocumentSymbols:
		if err := s.call(ctx, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: doc}, &raw); err != nil {
			return "", err
		}
		return answer(pl.symbols(raw), "No symbols found."), nil
	case OpWorkspaceSymbols:
		if err := s.call(ctx, protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: query}, &raw); err != nil {
			return "", err
		}
		return answer(pl.symbols(raw), "No symbols found."), nil
	}
	return "", fmt.Errorf("unknown operation %q", op)
}

// checkPosition refuses a 1-based line past text's lines, or a line or
// column below 1 (a column past its line's end is the end).
func checkPosition(text string, line, col int) error {
	lines := strings.Count(text, "\n") + 1
	switch {
	case line < 1 || col < 1:
		return fmt.Errorf("%w: line and column count from 1 (line %d, column %d)", ErrPosition, line, col)
	case line > lines:
		return fmt.Errorf("%w: line %d is past the end of the file (%d lines)", ErrPosition, line, lines)
	}
	return nil
}

// lines is a Query's answer: its lines, and the locations left out
// because they name no local file.
type lines struct {
	out     []string
	skipped int
}

func answer(l lines, none string) string {
	if len(l.out) == 0 && l.skipped == 0 {
		return none
	}
	var b strings.Builder
	for i, line := range l.out {
		if i == maxAnswer || b.Len()+len(line)+1 > maxAnswerBytes-answerTail {
			b.WriteString("… and " + strconv.Itoa(len(l.out)-i) + " more")
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if l.skipped > 0 {
		b.WriteString("(" + strconv.Itoa(l.skipped) + " not in a local file, left out)")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// placer writes the locations of an answer about path, whose text is
// known.
type placer struct {
	path, text string
	form       workspace.Form
}

// place is path:line:col of a location, ok false when its URI names no
// local file (uriPath). The column is characters in the file asked
// about, UTF-16 units plus one in others.
func (pl placer) place(u protocol.DocumentURI, p protocol.Position) (string, bool) {
	file, ok := uriPath(runtime.GOOS, string(u))
	if !ok {
		return "", false
	}
	return pl.at(file, p), true
}

func (pl placer) at(file string, p protocol.Position) string {
	col := int(p.Character) + 1
	if pl.form.Of(file) == pl.form.Of(pl.path) {
		col = fromUTF16(lineText(pl.text, int(p.Line)), p.Character)
	}
	return cleanText(file, maxPathBytes) + ":" + strconv.Itoa(int(p.Line)+1) + ":" + strconv.Itoa(col)
}

// sortPlaces orders path:line:col strings by path, then line and column
// as numbers.
func sortPlaces(out []string) {
	key := func(s string) (string, int, int) {
		i := strings.LastIndexByte(s, ':')
		j := strings.LastIndexByte(s[:max(i, 0)], ':')
		if i < 0 || j < 0 {
			return s, 0, 0
		}
		l, _ := strconv.Atoi(s[j+1 : i])
		c, _ := strconv.Atoi(s[i+1:])
		return s[:j], l, c
	}
	sort.SliceStable(out, func(a, b int) bool {
		pa, la, ca := key(out[a])
		pb, lb, cb := key(out[b])
		if pa != pb {
			return pa < pb
		}
		if la != lb {
			return la < lb
		}
		return ca < cb
	})
}

// locations reads Location | Location[] | LocationLink[] | null.
func (pl placer) locations(raw json.RawMessage) lines {
	type loc struct {
		URI       protocol.DocumentURI `json:"uri"`
		Range     *protocol.Range      `json:"range"`
		TargetURI protocol.DocumentURI `json:"targetUri"`
		Target    *protocol.Range      `json:"targetSelectionRange"`
	}
	var list []loc
	if json.Unmarshal(raw, &list) != nil {
		var one loc
		if json.Unmarshal(raw, &one) != nil || one.URI == "" {
			return lines{}
		}
		list = []loc{one}
	}
	var l lines
	add := func(u protocol.DocumentURI, p protocol.Position) {
		if s, ok := pl.place(u, p); ok {
			l.out = append(l.out, s)
		} else {
			l.skipped++
		}
	}
	for _, x := range list {
		switch {
		case x.TargetURI != "" && x.Target != nil:
			add(x.TargetURI, x.Target.Start)
		case x.URI != "" && x.Range != nil:
			add(x.URI, x.Range.Start)
		}
	}
	sortPlaces(l.out)
	return l
}

// hoverText reads a Hover's contents: MarkupContent, a MarkedString, or
// a list of them.
func hoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 {
		return ""
	}
	one := func(r json.RawMessage) string {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
		var v struct {
			Value string `json:"value"`
		}
		_ = json.Unmarshal(r, &v)
		return v.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(h.Contents, &list) == nil {
		var parts []string
		for _, r := range list {
			if t := one(r); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.TrimSpace(strings.Join(parts, "\n\n"))
	}
	return strings.TrimSpace(one(h.Contents))
}

// symbolKinds are LSP's SymbolKind names (LSP 3.17 §SymbolKind, read
// 2026-12-07), from 1.
var symbolKinds = []string{"file", "module", "namespace", "package", "class", "method", "property", "field",
	"constructor", "enum", "interface", "function", "variable", "constant", "string", "number", "boolean",
	"array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func kindName(k protocol.SymbolKind) string {
	if i := int(k) - 1; i >= 0 && i < len(symbolKinds) {
		return symbolKinds[i]
	}
	return "symbol"
}

// symbols reads DocumentSymbol[] (nested; pl.path is their file) or
// SymbolInformation[]; a symbol whose location names no local file is
// listed without one.
func (pl placer) symbols(raw json.RawMessage) lines {
	type sym struct {
		Name           string              `json:"name"`
		Kind           protocol.SymbolKind `json:"kind"`
		Container      string              `json:"containerName"`
		SelectionRange *protocol.Range     `json:"selectionRange"`
		Location       *protocol.Location  `json:"location"`
		Children       []json.RawMessage   `json:"children"`
	}
	var l lines
	var walk func(list []json.RawMessage, depth int)
	walk = func(list []json.RawMessage, depth int) {
		for _, r := range list {
			var s sym
			if json.Unmarshal(r, &s) != nil {
				continue
			}
			where := ""
			switch {
			case s.Location != nil:
				var ok bool
				if where, ok = pl.place(s.Location.URI, s.Location.Range.Start); !ok {
					where = "(not in a local file)"
				}
			case s.SelectionRange != nil:
				where = pl.at(pl.path, s.SelectionRange.Start)
			}
			name := cleanText(s.Name, maxNameBytes)
			if c := cleanText(s.Container, maxNameBytes); c != "" {
				name = c + "." + name
			}
			l.out = append(l.out, strings.Repeat("  ", min(depth, maxIndent))+kindName(s.Kind)+" "+name+" "+where)
			walk(s.Children, depth+1)
		}
	}
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	walk(list, 0)
	return l
}
