package bridge

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanTitle(t *testing.T) {
	for _, tc := range []struct{ name, answer, want string }{
		{"plain", "Fix the flaky parser test", "Fix the flaky parser test"},
		{"quoted with a full stop", "\"Fix the parser.\"", "Fix the parser"},
		{"labelled", "**Title:** Parser build failure", "Parser build failure"},
		{"the first line only", "\n\n  Rename the config loader  \nBecause the user asked.", "Rename the config loader"},
		{"spaces collapsed", "Add   retry\tto fetch", "Add retry to fetch"},
		{"CJK", "「修复解析器」。", "修复解析器"},
		{"nothing but punctuation", "  \"…\" ", ""},
		{"empty", "", ""},
		{"too long", strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 11)) + "…"},
		{"colour escapes", "\x1b[31mRed\x1b[0m alert\x07", "Red alert"},
		{"a terminal title and a clear screen", "\x1b]0;owned\x07Fix it\x1b[2J\x1bc", "Fix it"},
		{"bidi override and zero-width", "abc\u202edef\u200bghi", "abc def ghi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cleanTitle(tc.answer); got != tc.want {
				t.Errorf("cleanTitle(%q) = %q, want %q", tc.answer, got, tc.want)
			}
		})
	}
}

func TestTitleOf(t *testing.T) {
	for _, tc := range []struct{ name, prompt, want string }{
		{"first line", "fix the build\nit fails in ci", "fix the build"},
		{"trimmed", "\n  fix   the build  ", "fix the build"},
		{"cut at a word", "please look at the failing build in the parser package and tell me what broke it", "please look at the failing build in the parser package and…"},
		{"no word boundary", strings.Repeat("x", 100), strings.Repeat("x", 59) + "…"},
		{"multibyte", strings.Repeat("é", 100), strings.Repeat("é", 59) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := titleOf(tc.prompt)
			if got != tc.want || utf8.RuneCountInString(got) > titleMaxRunes || !utf8.ValidString(got) {
				t.Errorf("titleOf = %q, want %q", got, tc.want)
			}
		})
	}
}
