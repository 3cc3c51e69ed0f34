package views

import (
	"bytes"
	"context"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/views/card"
)

// TestPackedTokens: a client that asked for packed tokens gets a read's
// and a program's as "packedTokens" (golden, and valid ACP), never as
// "tokens".
func TestPackedTokens(t *testing.T) {
	env := Env{Cwd: cwd, Tokenizer: &keywordTokenizer{}, PackedTokens: true}
	goLines := []card.ReadFileLine{{Number: 10, Text: "func main() {"}, {Number: 11, Text: "\tfmt.Println(\"héllo 😀\")"}, {Number: 12, Text: "}"}}
	read := &card.Read{Path: "/work/project/src/main.go", Offset: 10, Lines: goLines, TotalLines: 40, Lang: "go"}
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
	if m := p.Meta["dsh"].(DshMeta); len(m.PackedTokens) != 2 || m.PackedTokens[0][0] != (highlight.Span{Start: 0, End: 5, Type: "Keyword"}) {
		t.Errorf("program tokens %+v", m.PackedTokens)
	}
}
