package lsp

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanText is a server's text as it may be shown on one line: control
// and bidirectional-override characters, and the line and paragraph
// separators, taken out (white space ones become spaces), cut at max
// bytes (on a character's boundary, "…" said).
func cleanText(s string, max int) string {
	return clean(s, max, false)
}

// cleanLines is cleanText keeping the text's lines and tabs (a hover's
// Markdown): line endings and separators become "\n"; a cut says at
// how many bytes.
func cleanLines(s string, max int) string {
	return clean(s, max, true)
}

func clean(s string, max int, lines bool) string {
	var b strings.Builder
	cr := false
	for _, r := range s {
		wasCR := cr
		cr = r == '\r'
		switch {
		case lines && (r == '\r' || r == '\u2028' || r == '\u2029'):
			r = '\n'
		case lines && r == '\n':
			if wasCR {
				continue // \r\n: one line ending
			}
		case lines && r == '\t':
		case unicode.IsSpace(r) && unicode.IsControl(r):
			r = ' '
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == '\u2028', r == '\u2029':
			continue
		}
		if b.Len()+utf8.RuneLen(r) > max {
			if lines {
				return strings.TrimSpace(b.String()) + "\n… (cut at " + strconv.Itoa(max) + " bytes)"
			}
			return strings.TrimSpace(b.String()) + "…"
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}
