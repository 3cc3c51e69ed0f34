package model

import (
	"strings"
	"testing"
)

func toolTurn(id, result string) []Message {
	return []Message{
		{Role: "assistant", ToolCalls: []ToolCall{{ID: id, Name: "read", Arguments: `{"file_path":"` + id + `.go"}`}}},
		{Role: "tool", ToolCallID: id, Content: result},
	}
}

func TestShrinkToolResults(t *testing.T) {
	big := strings.Repeat("x", 1000)
	var hist []Message
	hist = append(hist, Message{Role: "user", Content: "go"})
	hist = append(hist, toolTurn("a", big)...)
	hist = append(hist, toolTurn("b", big)...)
	hist = append(hist, toolTurn("c", big)...)
	for _, tc := range []struct {
		name string
		keep int
		want string
	}{
		{"everything fits", 3000, ""},
		{"the oldest goes first", 2000, "a"},
		{"the newest survives a zero budget", 0, "a,b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ids := ShrinkToolResults(hist, tc.keep)
			if strings.Join(ids, ",") != tc.want {
				t.Fatalf("shrunk %v, want %s", ids, tc.want)
			}
			for i, m := range out {
				shrunk := strings.Contains(tc.want, m.ToolCallID) && m.Role == "tool"
				if shrunk != isPlaceholder(m.Content) {
					t.Errorf("message %d %+v", i, m.Content[:min(60, len(m.Content))])
				}
				if shrunk && !strings.Contains(m.Content, `read({"file_path":"`+m.ToolCallID+`.go"}) returned 1000 bytes`) {
					t.Errorf("the placeholder does not name the call: %s", m.Content)
				}
			}
			if hist[2].Content != big {
				t.Error("the input history was modified")
			}
			if again := ApplyShrink(hist, ids); len(ids) > 0 && again[2].Content != out[2].Content {
				t.Error("ApplyShrink does not rebuild the same placeholder")
			}
		})
	}
}

func TestShrinkToolResults_Seen(t *testing.T) {
	big := strings.Repeat("x", 1000)
	user := func(s string) Message { return Message{Role: "user", Content: s} }
	answer := func(s string) Message { return Message{Role: "assistant", Content: s} }
	twoCalls := []Message{
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "p", Name: "read"}, {ID: "q", Name: "read"}}},
		{Role: "tool", ToolCallID: "p", Content: big},
		{Role: "tool", ToolCallID: "q", Content: big},
	}
	cat := func(parts ...[]Message) []Message {
		var out []Message
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		hist []Message
		want string // the calls whose results are shed, oldest first
	}{
		{"a result answered in text is shed",
			cat([]Message{user("go")}, toolTurn("a", big), []Message{answer("done"), user("next")}), "a"},
		{"a result answered in text, as the last message, is shed",
			cat([]Message{user("go")}, toolTurn("a", big), []Message{answer("done")}), "a"},
		{"the result after the last assistant message is kept",
			cat([]Message{user("go")}, toolTurn("a", big), []Message{answer("done"), user("next")}, toolTurn("b", big)), "a"},
		{"the very last message is a result",
			cat([]Message{user("go")}, toolTurn("a", big)), ""},
		{"every result of the last calls is kept",
			cat([]Message{user("go")}, toolTurn("a", big), twoCalls), "a"},
		{"a result followed by more calls is shed",
			cat([]Message{user("go")}, toolTurn("a", big), toolTurn("b", big)), "a"},
		{"no assistant message: nothing is seen",
			[]Message{user("go"), {Role: "tool", ToolCallID: "z", Content: big}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ids := ShrinkToolResults(tc.hist, 0)
			if got := strings.Join(ids, ","); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTurnEndsAndSummarised(t *testing.T) {
	hist := []Message{{Role: "user", Content: "1"}, {Role: "assistant", Content: "a1"}}
	hist = append(hist, Message{Role: "user", Content: "2"})
	hist = append(hist, toolTurn("x", "r")...)
	hist = append(hist, Message{Role: "assistant", Content: "a2"}, Message{Role: "user", Content: "3"})
	ends := TurnEnds(hist)
	if len(ends) != 2 || ends[0] != 2 || ends[1] != 6 {
		t.Fatalf("turn ends %v", ends)
	}
	out := Summarised("S", hist[ends[0]:])
	if out[0].Role != "user" || !strings.HasSuffix(out[0].Content, "S") || out[1].Role != "assistant" || out[2].Content != "2" {
		t.Errorf("summarised %+v", out[:3])
	}
}

func TestTranscriptAndCap(t *testing.T) {
	hist := []Message{{Role: "user", Content: strings.Repeat("u", 10_000)}}
	hist = append(hist, toolTurn("x", strings.Repeat("r", 10_000))...)
	hist = append(hist, Message{Role: "assistant", Content: "done"})
	tr := Transcript(hist, 1_000_000)
	if !strings.Contains(tr, "[calls read(") || !strings.Contains(tr, "more bytes]") || len(tr) > 7000 {
		t.Errorf("transcript of %d bytes: %.300s", len(tr), tr)
	}
	if short := Transcript(hist, 2000); !strings.HasPrefix(short, "[…earlier messages omitted…]") || !strings.HasSuffix(short, "done") {
		t.Errorf("a short transcript keeps the start: %.200s", short)
	}
	s := strings.Repeat("é", 50_000) // 100,000 bytes of 2-byte runes
	c := CapToolResult(s, 10_000)
	if len(c) > 10_600 || !strings.Contains(c, "bytes omitted here") || !strings.Contains(c, "offset and limit") {
		t.Errorf("capped to %d bytes", len(c))
	}
	if !strings.HasPrefix(c, "éé") || !strings.HasSuffix(c, "éé") || strings.ContainsRune(c, '\uFFFD') {
		t.Error("the cap split a rune or lost the ends")
	}
	if CapToolResult("short", 10) != "short" {
		t.Error("a short result was changed")
	}
}
