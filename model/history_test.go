package model

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestHistory_RequestsAsWhole: a request over a History is, byte for byte,
// the request of the same messages written whole, through growth, a
// change of dialect and a replacement, with and without a system prompt;
// and its size estimate is HistoryBytes of its messages.
func TestHistory_RequestsAsWhole(t *testing.T) {
	c, _ := NewChat(ChatConfig{APIKey: "k"})
	steps := []struct {
		name  string
		apply func(h *History)
		model string
	}{
		{"empty", func(h *History) {}, "deepseek-flash"},
		{"first messages", func(h *History) { h.Append(toolHistory[:3]...) }, "deepseek-flash"},
		{"one more", func(h *History) { h.Append(toolHistory[3]) }, "deepseek-flash"},
		{"another dialect", func(h *History) {}, "gpt-5"},
		{"grown in it", func(h *History) { h.Append(toolHistory[4]) }, "gpt-5"},
		{"back", func(h *History) { h.Append(Message{Role: "assistant", Content: "x"}) }, "deepseek-flash"},
		{"replaced by fewer", func(h *History) { h.Replace(append([]Message(nil), toolHistory[1:3]...)) }, "deepseek-flash"},
		{"replaced by none", func(h *History) { h.Replace(nil) }, "deepseek-flash"},
		{"grown again", func(h *History) { h.Append(toolHistory...) }, "deepseek-flash"},
	}
	for _, system := range []string{"", "sys"} {
		var h History
		for _, st := range steps {
			t.Run(fmt.Sprintf("system %q/%s", system, st.name), func(t *testing.T) {
				st.apply(&h)
				got := string(c.body(&Request{System: system, History: &h}, st.model))
				want := string(c.body(&Request{System: system, Messages: h.Messages()}, st.model))
				if got != want {
					t.Errorf("over the History\n %s\nwritten whole\n %s", got, want)
				}
				if _, size := c.bodyParts(&Request{System: system, History: &h}, st.model); size != len(want) {
					t.Errorf("parts size %d, body %d bytes", size, len(want))
				}
				if h.Bytes() != HistoryBytes(h.Messages()) || h.Len() != len(h.Messages()) {
					t.Errorf("Bytes %d Len %d, want %d and %d", h.Bytes(), h.Len(), HistoryBytes(h.Messages()), len(h.Messages()))
				}
			})
		}
	}
}

// TestHistory_KeepsEncodings: a request encodes only the messages added
// since the last one of the same dialect; a change of dialect or a
// replacement encodes them all again; Footprint counts what is kept.
func TestHistory_KeepsEncodings(t *testing.T) {
	c, _ := NewChat(ChatConfig{APIKey: "k"})
	var h History
	h.Append(toolHistory[:3]...)
	first := func(model string) [][]byte {
		parts, _ := c.bodyParts(&Request{System: "s", History: &h}, model)
		return parts[1 : len(parts)-1] // the messages'
	}
	same := func(a, b []byte) bool { return &a[0] == &b[0] }
	text := Footprint(h.Messages())
	if h.Footprint() != text {
		t.Errorf("Footprint %d before any request, want the text's %d", h.Footprint(), text)
	}
	a := first("deepseek-flash")
	encoded := 0
	for _, w := range a {
		encoded += len(w)
	}
	if h.Footprint() < text+encoded {
		t.Errorf("Footprint %d, want at least the text (%d) and the encodings (%d)", h.Footprint(), text, encoded)
	}
	h.Append(toolHistory[3])
	b := first("deepseek-flash")
	for i := range a {
		if !same(a[i], b[i]) {
			t.Errorf("message %d was encoded again", i)
		}
	}
	o := first("gpt-5")
	if !strings.Contains(string(b[1]), "reasoning_content") || strings.Contains(string(o[1]), "reasoning_content") || same(o[0], b[0]) {
		t.Errorf("another dialect kept the encodings: %s", o[1])
	}
	h.Replace(h.Messages())
	if h.Footprint() != Footprint(h.Messages()) {
		t.Errorf("Footprint %d after Replace, want the text's %d", h.Footprint(), Footprint(h.Messages()))
	}
	if r := first("gpt-5"); same(r[0], o[0]) {
		t.Errorf("Replace kept an encoding")
	}
}

// TestHistory_MessagesStay: a slice Messages returned neither changes when
// the history grows or is replaced, nor changes the history when appended
// to; a slice given to Replace is not written beyond its length.
func TestHistory_MessagesStay(t *testing.T) {
	var h History
	h.Append(toolHistory[:3]...)
	h.Append(toolHistory[3]) // the storage now has room beyond the messages
	got := h.Messages()
	mine := append(got, Message{Role: "user", Content: "mine"})
	h.Append(Message{Role: "user", Content: "history's"})
	if mine[4].Content != "mine" || h.Messages()[4].Content != "history's" {
		t.Errorf("an append to Messages' slice and one to the History share storage: %q %q", mine[4].Content, h.Messages()[4].Content)
	}
	h.Replace([]Message{{Role: "user", Content: "new"}})
	if len(got) != 4 || got[0].Content != "u" {
		t.Errorf("the slice returned before changed: %v", got)
	}
	given := make([]Message, 1, 4) // a replacement with room to spare
	given[0] = Message{Role: "user", Content: "given"}
	h.Replace(given)
	h.Append(Message{Role: "user", Content: "appended"})
	if spare := given[:2]; spare[1].Content != "" {
		t.Errorf("an append wrote into the replacement's spare capacity: %q", spare[1].Content)
	}
}

// TestHistory_ReadWhileWritten: the history is read (Footprint, Bytes,
// Messages) by other goroutines while requests over it are written and it
// grows, as every session's turn end reads every history (run with -race).
func TestHistory_ReadWhileWritten(t *testing.T) {
	c, _ := NewChat(ChatConfig{APIKey: "k"})
	var h History
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if h.Footprint() < 0 || h.Bytes() < 0 || len(h.Messages()) < 0 {
					t.Error("negative")
				}
			}
		})
	}
	for i := range 200 {
		h.Append(toolHistory[i%len(toolHistory)])
		c.bodyParts(&Request{History: &h}, []string{"deepseek-flash", "gpt-5"}[i/50%2])
		if i == 120 {
			h.Replace(h.Messages()[60:])
		}
	}
	close(stop)
	wg.Wait()
}
