package views

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/dsh-bridge/dsh-bridge/jsonv"

	"github.com/dsh-bridge/dsh-bridge/views/card"
)

// Span is one syntax token on a line: [Start, End) in UTF-16 code units (as
// editors count) and chroma's token type name, for example
// "KeywordDeclaration" or "LiteralStringDouble".
type Span struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Type  string `json:"type"`
}

// TokenLines is a card's tokens, a list of spans per line. It writes
// itself as JSON in one loop (a 2,000-line read has some 20,000 spans).
type TokenLines [][]Span

// AppendJSON writes [[{"start":s,"end":e,"type":"…"},…],…].
func (ts TokenLines) AppendJSON(dst []byte) ([]byte, error) {
	if ts == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, line := range ts {
		if i > 0 {
			dst = append(dst, ',')
		}
		if line == nil {
			dst = append(dst, "null"...)
			continue
		}
		dst = append(dst, '[')
		for j, sp := range line {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"start":`...)
			dst = strconv.AppendInt(dst, int64(sp.Start), 10)
			dst = append(dst, `,"end":`...)
			dst = strconv.AppendInt(dst, int64(sp.End), 10)
			dst = append(dst, `,"type":`...)
			dst = jsonv.AppendString(dst, sp.Type)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, ']'), nil
}

var lexerCache sync.Map // extension or lang → chroma.Lexer (nil: none)

// lexerFor picks a lexer from the language hint, else from the path; nil
// when neither names a known language.
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

// ReadTokens returns the update that adds syntax tokens to a finished read
// card: _meta.dsh with only "tokens" (the card and its text are not sent
// again), sent after the completed update so that tokenizing never delays
// the result. False when the view is not
// a read card or its language is unknown. Tokens are cached by path,
// window and text.
func ReadTokens(env Env, callID string, view card.ResultView) (ToolCallUpdate, bool) {
	v, ok := view.(*card.Read)
	if !ok || len(v.Lines) == 0 {
		return ToolCallUpdate{}, false
	}
	path := env.abs(v.Path)
	if lexerFor(path, v.Lang) == nil {
		return ToolCallUpdate{}, false
	}
	h := fnv.New64a()
	texts := make([]string, len(v.Lines))
	for i, l := range v.Lines {
		texts[i] = l.Text
		h.Write([]byte(l.Text))
		h.Write([]byte{'\n'})
	}
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%x", path, v.Lang, v.Offset, h.Sum64())
	tokens, cached := tokenCache.get(key)
	if !cached {
		tokens = Tokens(path, v.Lang, texts)
		tokenCache.put(key, tokens)
	}
	if tokens == nil {
		return ToolCallUpdate{}, false
	}
	return ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: callID, Meta: meta(DshMeta{Tokens: tokens}, nil)}, true
}

// tokenCache keeps recent tokenizations (a re-read of the same window, a
// session replay); it forgets everything past tokenCacheSize entries.
var tokenCache = &spanCache{m: map[string][][]Span{}}

const tokenCacheSize = 256

type spanCache struct {
	mu sync.Mutex
	m  map[string][][]Span
}

func (c *spanCache) get(k string) ([][]Span, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *spanCache) put(k string, v [][]Span) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= tokenCacheSize {
		clear(c.m)
	}
	c.m[k] = v
}

// LanguageName returns the highlighting language for a path or hint in
// lower case ("go", "python"), or "" when unknown.
func LanguageName(path, lang string) string {
	l := lexerFor(path, lang)
	if l == nil {
		return ""
	}
	return strings.ToLower(l.Config().Name)
}

// Tokens returns the syntax spans of each line (whitespace omitted),
// highlighting the lines as one text so that multi-line constructs inside
// the window are recognized. Unknown languages give nil.
func Tokens(path, lang string, lines []string) [][]Span {
	l := lexerFor(path, lang)
	if l == nil || len(lines) == 0 {
		return nil
	}
	it, err := l.Tokenise(nil, strings.Join(lines, "\n")+"\n")
	if err != nil {
		return nil
	}
	out := make([][]Span, len(lines))
	line, col := 0, 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		parts := strings.Split(tok.Value, "\n")
		for i, part := range parts {
			if i > 0 {
				line++
				col = 0
			}
			if line >= len(lines) {
				break
			}
			w := utf16Len(part)
			if w > 0 && strings.TrimSpace(part) != "" && tok.Type != chroma.Text && tok.Type != chroma.TextWhitespace {
				out[line] = append(out[line], Span{Start: col, End: col + w, Type: tok.Type.String()})
			}
			col += w
		}
	}
	return out
}

// terminalStyle is the one colour scheme terminal rendering uses, built on
// first use: importing chroma's styles package would parse every bundled
// style at start-up, in every process (command helpers included).
var terminalStyle = sync.OnceValue(func() *chroma.Style {
	return chroma.MustNewStyle("dsh-terminal", chroma.StyleEntries{
		chroma.Background:          "#f8f8f2 bg:#272822",
		chroma.Comment:             "#75715e",
		chroma.Keyword:             "#66d9ef",
		chroma.KeywordNamespace:    "#f92672",
		chroma.Operator:            "#f92672",
		chroma.NameFunction:        "#a6e22e",
		chroma.NameClass:           "#a6e22e",
		chroma.NameTag:             "#f92672",
		chroma.NameAttribute:       "#a6e22e",
		chroma.NameBuiltin:         "#66d9ef",
		chroma.LiteralString:       "#e6db74",
		chroma.LiteralNumber:       "#ae81ff",
		chroma.LiteralStringEscape: "#ae81ff",
		chroma.GenericDeleted:      "#f92672",
		chroma.GenericInserted:     "#a6e22e",
	})
})

// ANSI renders a read card's lines for a terminal: right-aligned line
// numbers and chroma's 256-colour highlighting (plain text for unknown
// languages). Used by terminal clients such as the demo.
func ANSI(c *card.Read) string {
	width := len(strconv.Itoa(max(c.Offset, 1) + len(c.Lines)))
	var body strings.Builder
	texts := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		texts[i] = l.Text
	}
	highlighted := texts
	if l := lexerFor(c.Path, c.Lang); l != nil {
		if it, err := l.Tokenise(nil, strings.Join(texts, "\n")+"\n"); err == nil {
			var b strings.Builder
			if formatters.TTY256.Format(&b, terminalStyle(), it) == nil {
				highlighted = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			}
		}
	}
	for i, l := range c.Lines {
		text := texts[i]
		if i < len(highlighted) {
			text = highlighted[i]
		}
		num := strconv.Itoa(l.Number)
		body.WriteString("\x1b[2m" + strings.Repeat(" ", max(0, width-len(num))) + num + " │\x1b[0m " + text + "\x1b[0m\n")
	}
	return body.String()
}
