package chromatok

import (
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

var lexerCache sync.Map // language key → chroma.Lexer (nil: none)

// lexerFor picks a lexer from the language hint, else from the path; nil
// when neither names a language with something to highlight.
func lexerFor(path, lang string) chroma.Lexer {
	key := "lang:" + strings.ToLower(lang)
	if lang == "" {
		key = "ext:" + strings.ToLower(filepath.Ext(path))
		if filepath.Ext(path) == "" {
			key = "name:" + filepath.Base(path)
		}
	}
	if l, ok := lexerCache.Load(key); ok {
		lx, _ := l.(chroma.Lexer)
		return lx
	}
	var l chroma.Lexer
	if lang != "" {
		l = lexers.Get(lang)
	}
	if l == nil && path != "" {
		l = lexers.Match(filepath.Base(path))
	}
	if l != nil && l.Config().Name == "plaintext" {
		l = nil // no highlighting to offer; tokenizing would be wasted work
	}
	if l != nil {
		l = chroma.Coalesce(l)
	}
	lexerCache.Store(key, l)
	return l
}

// LanguageName returns the lexer's name for a path or hint in lower case
// ("go", "python"), or "" when no lexer knows it.
func LanguageName(path, lang string) string {
	l := lexerFor(path, lang)
	if l == nil {
		return ""
	}
	return strings.ToLower(l.Config().Name)
}

// Tokenize returns the syntax spans of each line (whitespace and plain text
// omitted), highlighting the lines as one text so that multi-line
// constructs are recognized. known is false when no lexer knows the
// language.
func Tokenize(path, lang string, lines []string) (tokens highlight.TokenLines, known bool, err error) {
	l := lexerFor(path, lang)
	if l == nil {
		return nil, false, nil
	}
	out := make(highlight.TokenLines, len(lines))
	if len(lines) == 0 {
		return out, true, nil
	}
	text := strings.Join(lines, "\n") + "\n"
	next, err := tokenIter(l, text)
	if err != nil {
		return nil, true, err
	}
	line, col := 0, 0
	for tok := next(); tok != chroma.EOF; tok = next() {
		for i, part := range strings.Split(tok.Value, "\n") {
			if i > 0 {
				line++
				col = 0
			}
			if line >= len(lines) {
				break
			}
			w := utf16Len(part)
			if w > 0 && strings.TrimSpace(part) != "" && tok.Type != chroma.Text && tok.Type != chroma.TextWhitespace {
				out[line] = append(out[line], highlight.Span{Start: col, End: col + w, Type: tok.Type.String()})
			}
			col += w
		}
	}
	return out, true, nil
}

// utf16Len counts s in UTF-16 code units (an invalid byte is one unit, as
// the U+FFFD editors show for it).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// tokenIter iterates over text's tokens: those of goTokens for Go, where it
// can, else chroma's.
func tokenIter(l chroma.Lexer, text string) (chroma.Iterator, error) {
	if l.Config().Name == "Go" {
		if toks, ok := goTokens(text); ok {
			return func() chroma.Token {
				if len(toks) == 0 {
					return chroma.EOF
				}
				t := toks[0]
				toks = toks[1:]
				return chroma.Token{Type: t.typ, Value: text[t.start:t.end]}
			}, nil
		}
	}
	return l.Tokenise(nil, text)
}
