package views

import (
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
)

func TestANSI(t *testing.T) {
	rc := &card.Read{Path: "a.go", Offset: 9, Lines: []card.ReadFileLine{{Number: 9, Text: "package main"}, {Number: 10, Text: "s := \"é𝄞\" // x"}}}
	tokens := highlight.TokenLines{
		{{Start: 0, End: 7, Type: "KeywordNamespace"}, {Start: 8, End: 12, Type: "NameOther"}},
		{{Start: 5, End: 10, Type: "LiteralStringDouble"}, {Start: 11, End: 15, Type: "CommentSingle"}},
	}
	t.Run("line numbers and colours by type prefix", func(t *testing.T) {
		out := ANSI(rc, tokens)
		if !strings.Contains(out, " 9 │") || !strings.Contains(out, "10 │") || strings.Count(out, "\n") != 2 {
			t.Errorf("line numbers: %q", out)
		}
		for _, want := range []string{
			"\x1b[38;5;197mpackage\x1b[0m main", // KeywordNamespace; NameOther has no colour
			"s := \x1b[38;5;186m\"é𝄞\"\x1b[0m",  // UTF-16 columns: 𝄞 is two units
			"\x1b[38;5;101m// x\x1b[0m",         // CommentSingle → Comment
		} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in %q", want, out)
			}
		}
	})
	t.Run("no tokens is plain text", func(t *testing.T) {
		out := ANSI(rc, nil)
		if strings.Contains(out, "\x1b[38;5;") || !strings.Contains(out, "package main") {
			t.Errorf("plain: %q", out)
		}
	})
	t.Run("spans past the line or overlapping are skipped", func(t *testing.T) {
		out := ANSI(rc, highlight.TokenLines{{{Start: 3, End: 99, Type: "Keyword"}, {Start: 1, End: 2, Type: "Keyword"}}})
		if !strings.Contains(out, "pac\x1b[38;5;81mkage main\x1b[0m") {
			t.Errorf("got %q", out)
		}
	})
}
