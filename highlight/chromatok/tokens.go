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

// chosen is the lexer chosen for each language key (nil: none), forgotten
// whole past maxLexerKeys (a key per file name read without a hint).
var chosen struct {
	sync.Mutex
	m map[string]chroma.Lexer
}

const maxLexerKeys = 4096

// lexerFor picks a lexer from the language hint, else from the path; nil
// when neither names a language with something to highlight. Without a
// hint the key is the whole file name: chroma matches names against its
// lexers' patterns case by case ("*.go", not "*.GO"; "CMakeLists.txt",
// not every ".txt"), so an extension alone would let the first name read
// decide for every other.
func lexerFor(path, lang string) chroma.Lexer {
	key := "lang:" + strings.ToLower(lang)
	if lang == "" {
		key = "name:" + filepath.Base(path)
	}
	chosen.Lock()
	l, ok := chosen.m[key]
	chosen.Unlock()
	if ok {
		return l
	}
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
	chosen.Lock()
	if len(chosen.m) >= maxLexerKeys || chosen.m == nil {
		chosen.m = map[string]chroma.Lexer{}
	}
	chosen.m[key] = l
	chosen.Unlock()
	return l
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
	out, err := chromaLines(l, lines, highlight.MaxSpans)
	return out, true, err
}

// chromaLines is Tokenize by chroma's lexer l, whatever the language, up
// to budget spans in all.
func chromaLines(l chroma.Lexer, lines []string, budget int) (highlight.TokenLines, error) {
	out := make(highlight.TokenLines, len(lines))
	if len(lines) == 0 {
		return out, nil
	}
	text := strings.Join(lines, "\n") + "\n"
	next, err := l.Tokenise(nil, text)
	if err != nil {
		return nil, err
	}
	line, col, total := 0, 0, 0
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
			if w > 0 && total < budget && strings.TrimSpace(part) != "" && tok.Type != chroma.Text && tok.Type != chroma.TextWhitespace {
				out[line] = append(out[line], highlight.Span{Start: col, End: col + w, Type: tok.Type.String()})
				total++
			}
			col += w
		}
	}
	return out, nil
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
