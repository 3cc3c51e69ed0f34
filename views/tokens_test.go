package views

import (
	"bytes"
	"context"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// TestPackedTokens: a client that asked for packed tokens gets a read's
// and a program's as "packedTokens" (golden, and valid ACP), never as
// "tokens".
func TestPackedTokens(t *testing.T) {
	env := Env{Cwd: cwd, Tokenizer: &keywordTokenizer{}, PackedTokens: true}
	goLines := []card.ReadFileLine{{Number: 10, Text: "func main() {"}, {Number: 11, Text: "\tfmt.Println(\"héllo 😀\")"}, {Number: 12, Text: "}"}}
	read := &card.Read{Path: osPath("/work/project/src/main.go"), Offset: 10, Lines: goLines, TotalLines: 40, Lang: "go"}
	prog := &card.Generic{Title: "Run code", Kind: card.KindExecute, RawInput: "const x = 1\nreturn x", Lang: "typescript"}
	r, ok1 := ReadTokens(context.Background(), env, "call_1", read)
	p, ok2 := ProgramTokens(context.Background(), env, "call_2", prog)
	if !ok1 || !ok2 {
		t.Fatalf("tokens updates: read %v, program %v", ok1, ok2)
	}
	for name, u := range map[string]ToolCallUpdate{"read": r, "program": p} {
		t.Run(name, func(t *testing.T) { checkWire(t, "SessionNotification", notification(u)) })
		m := u.Meta["dsh"].(DshMeta)
		if m.Tokens != nil || m.Card != nil || m.PackedTokens == nil || m.Version != MetaVersion {
			t.Errorf("%s: %+v", u.ToolCallID, m)
		}
		line, err := jsonv.AppendGo(nil, u)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(line, []byte(`"packedTokens":{"lines":[`)) || bytes.Contains(line, []byte(`"tokens"`)) {
			t.Errorf("%s: %s", u.ToolCallID, line)
		}
	}
	var got highlight.PackedLines
	if err := got.UnmarshalJSON(p.Meta["dsh"].(DshMeta).PackedTokens); err != nil || len(got) != 2 || got[0][0] != (highlight.Span{Start: 0, End: 5, Type: "Keyword"}) {
		t.Errorf("program tokens %+v (%v)", got, err)
	}
}

// TestPackedTokens_ByTheTokenizer: a tokenizer that packs tokens itself
// (the bridge's *highlight.Client) is asked for them packed.
func TestPackedTokens_ByTheTokenizer(t *testing.T) {
	lines := []card.ReadFileLine{{Number: 1, Text: "package main"}, {Number: 2, Text: ""}, {Number: 3, Text: "func main() { println(\"héllo 😀\", 0x1F) }"}}
	read := &card.Read{Path: osPath("/work/project/main.go"), Offset: 1, Lines: lines, TotalLines: 3}
	p := &packingTokenizer{}
	if _, ok := ReadTokens(context.Background(), Env{Cwd: cwd, Tokenizer: p, PackedTokens: true}, "c", read); !ok || p.packed != 1 || p.keywordTokenizer.last.path == "" {
		t.Errorf("a packing tokenizer: ok %v, packed %d times, asked for spans %+v", ok, p.packed, p.keywordTokenizer.last)
	}
}

// packingTokenizer packs keywordTokenizer's spans, counting its calls.
type packingTokenizer struct {
	keywordTokenizer
	packed int
}

func (p *packingTokenizer) PackedTokens(ctx context.Context, path, lang string, lines []string) (highlight.Packed, error) {
	p.packed++
	ts, err := p.Tokens(ctx, path, lang, lines)
	return highlight.Pack(ts), err
}
