package lsp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// lineText is line (0-based) of text, without its ending; "" past the end.
func lineText(text string, line int) string {
	for i := 0; i < line; i++ {
		k := strings.IndexByte(text, '\n')
		if k < 0 {
			return ""
		}
		text = text[k+1:]
	}
	if k := strings.IndexByte(text, '\n'); k >= 0 {
		text = text[:k]
	}
	return strings.TrimSuffix(text, "\r")
}

// toUTF16 is the LSP character offset (UTF-16 code units, LSP's default
// encoding) of the 1-based character column col of line: what read's
// numbered lines show is characters. A column past the line's end is the
// end.
func toUTF16(line string, col int) uint32 {
	n := uint32(0)
	for _, r := range line {
		if col <= 1 {
			break
		}
		col--
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// fromUTF16 is the 1-based character column of the UTF-16 offset ch in
// line (past the end: one past the last character).
func fromUTF16(line string, ch uint32) int {
	col := 1
	for _, r := range line {
		if ch == 0 {
			break
		}
		w := uint32(1)
		if r >= 0x10000 {
			w = 2
		}
		if ch < w {
			break
		}
		ch -= w
		col++
	}
	if ch > 0 && col > utf8.RuneCountInString(line) {
		col += int(ch) // a server that counts past the line: keep its excess
	}
	return col
}

// severityName is LSP's severity as the tools print it (a missing
// severity is the client's to choose; LSP 3.17 §Diagnostic: we take
// error).
func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityWarning:
		return card.SeverityWarning
	case protocol.DiagnosticSeverityInformation:
		return card.SeverityInfo
	case protocol.DiagnosticSeverityHint:
		return card.SeverityHint
	}
	return card.SeverityError
}

// convert turns a publication's diagnostics of path (whose text, when
// known, places the columns) into cards, in the server's order, their
// texts cleaned and capped (cleanText), as many as fit in maxBytes
// (diagSize each); it returns their size.
func convert(path, text string, in []protocol.Diagnostic, maxBytes int) ([]card.Diagnostic, int) {
	out := make([]card.Diagnostic, 0, len(in))
	size := 0
	for _, d := range in {
		line := int(d.Range.Start.Line)
		col := int(d.Range.Start.Character) + 1
		if text != "" {
			col = fromUTF16(lineText(text, line), d.Range.Start.Character)
		}
		code := ""
		if d.Code != nil {
			code = fmt.Sprint(d.Code)
		}
		c := card.Diagnostic{Path: path, Line: line + 1, Column: col, Severity: severityName(d.Severity),
			Message: cleanText(d.Message, maxMessageBytes), Source: cleanText(d.Source, maxFieldBytes), Code: cleanText(code, maxFieldBytes)}
		n := diagSize(c)
		if size+n > maxBytes {
			break
		}
		out = append(out, c)
		size += n
	}
	return out, size
}

// diagSize is what a kept diagnostic costs: its texts and diagOverhead.
func diagSize(d card.Diagnostic) int {
	return len(d.Message) + len(d.Source) + len(d.Code) + diagOverhead
}
