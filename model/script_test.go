package model

import (
	"context"
	"strings"
	"testing"
)

func TestScript(t *testing.T) {
	s, err := ParseScript("t.jsonl", []byte(`# a comment
{"reasoning":"hmm","text":"Reading héllo.","tool_calls":[{"id":"c1","name":"read","arguments":{"file_path":"a.go"}},{"name":"edit","arguments":"{broken"}]}

{"expect":[{"id":"c1","contains":"package"},{"id":"script_1_2","error":true}],"text":"done"}
`))
	if err != nil {
		t.Fatal(err)
	}
	var text, thought strings.Builder
	var calls []ToolCall
	h := Handler{OnText: func(s string) { text.WriteString(s) }, OnReasoning: func(s string) { thought.WriteString(s) }, OnToolCall: func(c ToolCall) { calls = append(calls, c) }}
	r, err := s.Complete(context.Background(), Request{}, h)
	if err != nil || text.String() != "Reading héllo." || thought.String() != "hmm" || len(calls) != 2 || r.FinishReason != "tool_calls" {
		t.Fatalf("turn 1: %+v %v %q", r, err, text.String())
	}
	if calls[0].Arguments != `{"file_path":"a.go"}` || calls[1].Arguments != "{broken" || calls[1].ID != "script_1_2" {
		t.Errorf("calls %+v", calls)
	}
	t.Run("expectation failure", func(t *testing.T) {
		s2, _ := ParseScript("t", []byte(`{"expect":[{"id":"c1","contains":"package"}]}`))
		_, err := s2.Complete(context.Background(), Request{Messages: []Message{{Role: "tool", ToolCallID: "c1", Content: "nope"}}}, Handler{})
		if err == nil || !strings.Contains(err.Error(), `tool result "c1" does not contain "package"`) {
			t.Errorf("err %v", err)
		}
	})
	r, err = s.Complete(context.Background(), Request{Messages: []Message{
		{Role: "tool", ToolCallID: "c1", Content: "1: package main"}, {Role: "tool", ToolCallID: "script_1_2", Content: "Error: invalid"},
	}}, Handler{})
	if err != nil || r.Text != "done" {
		t.Errorf("turn 2: %+v %v", r, err)
	}
	if r, _ := s.Complete(context.Background(), Request{}, Handler{}); r.Text != "(end of script)" {
		t.Errorf("after the end: %q", r.Text)
	}
	for _, bad := range []string{`{"text":1}`, `{"txt":"typo"}`, `{"tool_calls":[{"id":"x"}]}`, `not json`} {
		if _, err := ParseScript("bad.jsonl", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "bad.jsonl:1:") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestScriptTitle pins that a title request takes no step of the script:
// the turns after it are the ones the conversation scripted.
func TestScriptTitle(t *testing.T) {
	title := func(first string) Request {
		return Request{System: TitlePrompt, Messages: []Message{{Role: "user", Content: first}, {Role: "assistant", Content: "ok"}}}
	}
	for _, tc := range []struct {
		name, script, first, want string
	}{
		{"the script's title line", "{\"text\":\"one\"}\n{\"title\":\"Fix the parser\"}\n{\"text\":\"two\"}\n", "whatever was asked", "Fix the parser"},
		{"the prompt's first words", "{\"text\":\"one\"}\n{\"text\":\"two\"}\n", "please fix the flaky parser test in pkg/a now", "please fix the flaky parser test"},
		{"a short prompt", "{\"text\":\"one\"}\n{\"text\":\"two\"}\n", "hi there", "hi there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseScript("t", []byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			if r, err := s.Complete(context.Background(), Request{}, Handler{}); err != nil || r.Text != "one" {
				t.Fatalf("turn 1: %+v %v", r, err)
			}
			for range 3 { // as often as it comes: never a step
				if r, err := s.Complete(context.Background(), title(tc.first), Handler{}); err != nil || r.Text != tc.want {
					t.Fatalf("title: %q %v, want %q", r.Text, err, tc.want)
				}
			}
			if r, err := s.Complete(context.Background(), Request{}, Handler{}); err != nil || r.Text != "two" {
				t.Fatalf("turn 2 after the title: %+v %v", r, err)
			}
		})
	}
	t.Run("a title line with a turn in it", func(t *testing.T) {
		if _, err := ParseScript("t", []byte(`{"title":"x","text":"y"}`)); err == nil {
			t.Fatal("parsed")
		}
	})
}
