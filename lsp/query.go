package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The operations of Query.
const (
	OpDefinition       = "definition"
	OpReferences       = "references"
	OpHover            = "hover"
	OpDocumentSymbols  = "document_symbols"
	OpWorkspaceSymbols = "workspace_symbols"
)

// maxAnswer caps the lines of a Query's answer.
const maxAnswer = 200

// Query asks path's server (path holds text; line and col are 1-based,
// col in characters) one of the Op questions; query is
// workspace_symbols' search text. The answer is text for the model:
// locations as path:line:col, one a line.
func (m *Manager) Query(ctx context.Context, op, path, text string, line, col int, query string) (string, error) {
	s := m.server(path)
	if s == nil {
		return "", fmt.Errorf("%w for %s", ErrNoServer, path)
	}
	if err := s.withConn(ctx, func() error { _, err := s.sync(ctx, path, text); return err }); err != nil {
		return "", err
	}
	doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
	pos := protocol.Position{Line: uint32(max(line, 1) - 1), Character: toUTF16(lineText(text, max(line, 1)-1), col)}
	at := protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos}
	var raw json.RawMessage
	switch op {
	case OpDefinition:
		if err := s.call(ctx, protocol.MethodTextDocumentDefinition, &protocol.DefinitionParams{TextDocumentPositionParams: at}, &raw); err != nil {
			return "", err
		}
		return answer(locations(raw), "No definition found."), nil
	case OpReferences:
		p := &protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
		if err := s.call(ctx, protocol.MethodTextDocumentReferences, p, &raw); err != nil {
			return "", err
		}
		return answer(locations(raw), "No references found."), nil
	case OpHover:
		if err := s.call(ctx, protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: at}, &raw); err != nil {
			return "", err
		}
		if h := hoverText(raw); h != "" {
			return h, nil
		}
		return "No hover information.", nil
	case OpDocumentSymbols:
		if err := s.call(ctx, protocol.MethodTextDocumentDocumentSymbol, &protocol.DocumentSymbolParams{TextDocument: doc}, &raw); err != nil {
			return "", err
		}
		return answer(symbols(raw, path), "No symbols found."), nil
	case OpWorkspaceSymbols:
		if err := s.call(ctx, protocol.MethodWorkspaceSymbol, &protocol.WorkspaceSymbolParams{Query: query}, &raw); err != nil {
			return "", err
		}
		return answer(symbols(raw, path), "No symbols found."), nil
	}
	return "", fmt.Errorf("unknown operation %q", op)
}

func answer(lines []string, none string) string {
	if len(lines) == 0 {
		return none
	}
	if len(lines) > maxAnswer {
		n := len(lines) - maxAnswer
		lines = append(lines[:maxAnswer], "… and "+strconv.Itoa(n)+" more")
	}
	return strings.Join(lines, "\n")
}

// place is path:line:col of an LSP position (the column counted as
// UTF-16 units plus one: the other files' text is not read here).
func place(u protocol.DocumentURI, p protocol.Position) string {
	return uri.URI(u).Filename() + ":" + strconv.Itoa(int(p.Line)+1) + ":" + strconv.Itoa(int(p.Character)+1)
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
func locations(raw json.RawMessage) []string {
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
			return nil
		}
		list = []loc{one}
	}
	var out []string
	for _, l := range list {
		switch {
		case l.TargetURI != "" && l.Target != nil:
			out = append(out, place(l.TargetURI, l.Target.Start))
		case l.URI != "" && l.Range != nil:
			out = append(out, place(l.URI, l.Range.Start))
		}
	}
	sortPlaces(out)
	return out
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

// symbols reads DocumentSymbol[] (nested; path is their file) or
// SymbolInformation[].
func symbols(raw json.RawMessage, path string) []string {
	type sym struct {
		Name           string               `json:"name"`
		Kind           protocol.SymbolKind  `json:"kind"`
		Container      string               `json:"containerName"`
		SelectionRange *protocol.Range      `json:"selectionRange"`
		Location       *protocol.Location   `json:"location"`
		Children       []json.RawMessage    `json:"children"`
		URI            protocol.DocumentURI `json:"-"`
	}
	var out []string
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
				where = place(s.Location.URI, s.Location.Range.Start)
			case s.SelectionRange != nil:
				where = place(uri.File(path), s.SelectionRange.Start)
			}
			name := s.Name
			if s.Container != "" {
				name = s.Container + "." + name
			}
			out = append(out, strings.Repeat("  ", depth)+kindName(s.Kind)+" "+name+" "+where)
			walk(s.Children, depth+1)
		}
	}
	var list []json.RawMessage
	_ = json.Unmarshal(raw, &list)
	walk(list, 0)
	return out
}
