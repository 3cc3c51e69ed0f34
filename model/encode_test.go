package model

import (
	"strings"
	"testing"
)

// TestWireOf: wireOf is the message's encoding, after its separator,
// allocated at its own size (a History keeps it as long as the message),
// in every dialect, and never shares the scratch buffer it was made in.
func TestWireOf(t *testing.T) {
	code := strings.Repeat("\tif err != nil {\n\t\treturn \"x\", err // é\n\t}\n", 60)
	for _, tc := range []struct {
		name string
		m    Message
	}{
		{"tool result of source code", Message{Role: "tool", ToolCallID: "call_00_abc", Content: "<path>/w/a.go</path>\n<content>\n" + code + "</content>"}},
		{"user text with control characters", Message{Role: "user", Content: "a\x00b\x1fc\"d\\" + code}},
		{"assistant tool calls", Message{Role: "assistant", Reasoning: code[:400], ToolCalls: []ToolCall{{ID: "c1", Name: "read", Arguments: `{"file_path":"a \"b\".go"}`}, {ID: "c2", Name: "bash", Arguments: `{"command":"go test ./...\n"}`}}}},
		{"assistant text", Message{Role: "assistant", Content: code}},
		{"invalid UTF-8", Message{Role: "tool", ToolCallID: "c", Content: "\xff\xfe" + code}},
		{"larger than a kept scratch buffer", Message{Role: "tool", ToolCallID: "c", Content: strings.Repeat(code, 1+maxScratch/len(code))}},
	} {
		for _, d := range []dialect{dialectDeepSeek, dialectOpenAI} {
			t.Run(tc.name, func(t *testing.T) {
				m := tc.m
				b := wireOf(&m, d)
				if len(b) == 0 || b[0] != ',' {
					t.Fatalf("encoding %.20q does not start with its separator", b)
				}
				if c := cap(b); c-len(b) > max(len(b)/8, 64) { // a size class's rounding
					t.Errorf("encoding of %d bytes kept in %d", len(b), c)
				}
				other := Message{Role: "user", Content: strings.Repeat("overwrite ", len(b)/10+1)}
				wireOf(&other, d) // reuses whatever scratch there is
				b = b[1:]
				if string(b) != string(appendMessage(nil, &m, d)) {
					t.Errorf("the encoding changed when the scratch buffer was reused")
				}
			})
		}
	}
}
