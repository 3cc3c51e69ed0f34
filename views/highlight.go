package views

import (
	"context"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// Tokenizer gives syntax tokens for lines of a file: nil and no error when
// the language is unknown. *highlight.Client is the bridge's.
type Tokenizer interface {
	Tokens(ctx context.Context, path, lang string, lines []string) (highlight.TokenLines, error)
}

// ReadTokens returns the update that adds syntax tokens to a finished read
// card: _meta.dsh with only "tokens" (or "packedTokens", env.PackedTokens;
// the card and its text are not sent again), sent after the completed
// update so that tokenizing never delays the result. False when the view
// is not a read card, env has no Tokenizer, the language is unknown, or
// the tokenizer failed (a card without colours is still a card).
func ReadTokens(ctx context.Context, env Env, callID string, view card.ResultView) (ToolCallUpdate, bool) {
	v, ok := view.(*card.Read)
	if !ok || len(v.Lines) == 0 || env.Tokenizer == nil {
		return ToolCallUpdate{}, false
	}
	texts := make([]string, len(v.Lines))
	for i, l := range v.Lines {
		texts[i] = l.Text
	}
	if p, ok := env.Tokenizer.(PackingTokenizer); ok && env.PackedTokens {
		packed, err := p.PackedTokens(ctx, env.abs(v.Path), v.Lang, texts)
		if err != nil || packed == nil {
			return ToolCallUpdate{}, false
		}
		return packedUpdate(callID, packed), true
	}
	tokens, err := env.Tokenizer.Tokens(ctx, env.abs(v.Path), v.Lang, texts)
	if err != nil || tokens == nil {
		return ToolCallUpdate{}, false
	}
	return tokensUpdate(env, callID, tokens), true
}

// PackingTokenizer is a Tokenizer that also writes tokens in the packed
// form itself (*highlight.Client does): nil and no error
// when the language is unknown.
type PackingTokenizer interface {
	PackedTokens(ctx context.Context, path, lang string, lines []string) (highlight.Packed, error)
}

// tokensUpdate is the update that carries only tokens, in the form the
// client asked for.
func tokensUpdate(env Env, callID string, tokens highlight.TokenLines) ToolCallUpdate {
	if env.PackedTokens {
		return packedUpdate(callID, highlight.Pack(tokens))
	}
	return ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: callID, Meta: meta(DshMeta{Tokens: tokens}, nil)}
}

// packedUpdate is the update that carries only packed tokens.
func packedUpdate(callID string, packed highlight.Packed) ToolCallUpdate {
	return ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: callID, Meta: meta(DshMeta{PackedTokens: packed}, nil)}
}

// ShowsProgram reports whether a pending card shows a program whose
// tokens [ProgramTokens] can make: a caller with nothing to tokenize
// starts nothing.
func ShowsProgram(view card.CallView) bool {
	_, _, ok := shownProgram(view)
	return ok
}

// shownProgram is the card that shows a program, and the program.
func shownProgram(view card.CallView) (*card.Generic, string, bool) {
	g, ok := view.(*card.Generic)
	if !ok || g.Lang == "" {
		return nil, "", false
	}
	src, ok := g.RawInput.(string)
	return g, src, ok
}

// ProgramTokens returns the update that adds syntax tokens to the program
// a pending card shows (run_code's): _meta.dsh with only "tokens", sent
// after the card so that tokenizing (the helper's start, the first time)
// never delays the announcement. False when the card shows no program,
// env has no Tokenizer, or the tokenizer cannot say.
func ProgramTokens(ctx context.Context, env Env, callID string, view card.CallView) (ToolCallUpdate, bool) {
	g, src, ok := shownProgram(view)
	if !ok || env.Tokenizer == nil {
		return ToolCallUpdate{}, false
	}
	tokens, err := env.Tokenizer.Tokens(ctx, "", g.Lang, strings.Split(src, "\n"))
	if err != nil || tokens == nil {
		return ToolCallUpdate{}, false
	}
	return tokensUpdate(env, callID, tokens), true
}

// ansiPalette is the one colour scheme terminal rendering uses, in
// xterm's 256 colours, by token type; a type not listed takes the colour
// of its nearest listed prefix (LiteralStringDouble → LiteralString).
var ansiPalette = map[string]int{
	"Comment":             101,
	"Keyword":             81,
	"KeywordNamespace":    197,
	"Operator":            197,
	"NameFunction":        148,
	"NameClass":           148,
	"NameTag":             197,
	"NameAttribute":       148,
	"NameBuiltin":         81,
	"LiteralString":       186,
	"LiteralNumber":       141,
	"LiteralStringEscape": 141,
	"GenericDeleted":      197,
	"GenericInserted":     148,
}

// ansiColour finds a token type's colour, trimming its CamelCase words
// from the end until a listed prefix remains; 0 when none does.
func ansiColour(typ string) int {
	for typ != "" {
		if c, ok := ansiPalette[typ]; ok {
			return c
		}
		i := strings.LastIndexFunc(typ, func(r rune) bool { return r >= 'A' && r <= 'Z' })
		if i <= 0 {
			return 0
		}
		typ = typ[:i]
	}
	return 0
}

// ANSI renders a read card's lines for a terminal: right-aligned line
// numbers, and the tokens (one slice per line, as [ReadTokens] gives them;
// nil for plain text) in 256 colours. Used by terminal clients such as the
// demo.
func ANSI(c *card.Read, tokens highlight.TokenLines) string {
	width := len(strconv.Itoa(max(c.Offset, 1) + len(c.Lines)))
	var body strings.Builder
	for i, l := range c.Lines {
		num := strconv.Itoa(l.Number)
		body.WriteString("\x1b[2m" + strings.Repeat(" ", max(0, width-len(num))) + num + " │\x1b[0m ")
		var spans []highlight.Span
		if i < len(tokens) {
			spans = tokens[i]
		}
		at := 0
		for _, sp := range spans {
			from, to := utf16Offset(l.Text, sp.Start), utf16Offset(l.Text, sp.End)
			if from < at || to <= from {
				continue
			}
			body.WriteString(l.Text[at:from])
			if c := ansiColour(sp.Type); c != 0 {
				body.WriteString("\x1b[38;5;" + strconv.Itoa(c) + "m" + l.Text[from:to] + "\x1b[0m")
			} else {
				body.WriteString(l.Text[from:to])
			}
			at = to
		}
		body.WriteString(l.Text[at:] + "\x1b[0m\n")
	}
	return body.String()
}
