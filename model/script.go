package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// ScriptTurn is one scripted assistant turn: a line of a script file.
//
//	{"reasoning": "…", "text": "…",
//	 "tool_calls": [{"id": "c1", "name": "read", "arguments": {"file_path": "a.go"}}],
//	 "expect": [{"id": "c1", "contains": "package main"}, {"id": "c2", "error": true}],
//	 "finish": "stop"}
//
// arguments may be an object or a string of raw JSON (to script malformed
// arguments). expect checks the tool results the request for this turn
// carries (the previous turn's calls): each named result must contain the
// text, and error, when given, whether it failed ("Error: …").
//
// A line may instead hold only a title, {"title": "Fix the parser"}: it
// is no turn, and it is what title requests get (see Script).
type ScriptTurn struct {
	Title     string         `json:"title"`
	Reasoning string         `json:"reasoning"`
	Text      string         `json:"text"`
	ToolCalls []ScriptCall   `json:"tool_calls"`
	Expect    []ScriptExpect `json:"expect"`
	Finish    string         `json:"finish"`
}

// ScriptCall is one scripted tool call.
type ScriptCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ScriptExpect is an expectation on one received tool result.
type ScriptExpect struct {
	ID       string `json:"id"`
	Contains string `json:"contains"`
	Error    *bool  `json:"error"`
}

// Script is a Client that replays a script with no network: each request
// takes the next turn (one cursor per process); after the last turn it
// answers "(end of script)". Deterministic, for demos and editor-plugin
// integration tests.
//
// A title request (IsTitleRequest: the one a session makes after its
// first exchange) takes no turn, so a script's steps are the
// conversation's alone: it is answered with the script's title line, or,
// without one, with the first six words of the request's first user
// message (the session's first prompt). It is answered whenever it comes,
// between or during turns.
type Script struct {
	mu    sync.Mutex
	turns []ScriptTurn
	next  int
	name  string
	title string // the script's title line; empty: the prompt's first words
}

// LoadScript reads a JSONL script; blank lines and lines starting with #
// are skipped.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the model script: %w", err)
	}
	return ParseScript(path, data)
}

// ParseScript parses script text; name labels errors.
func ParseScript(name string, data []byte) (*Script, error) {
	s := &Script{name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var t ScriptTurn
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		for i, c := range t.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("%s:%d: tool_calls[%d] needs a name", name, n, i)
			}
		}
		if t.Title != "" {
			if t.Reasoning != "" || t.Text != "" || len(t.ToolCalls) > 0 || len(t.Expect) > 0 || t.Finish != "" {
				return nil, fmt.Errorf("%s:%d: a title line holds the title alone", name, n)
			}
			s.title = t.Title
			continue
		}
		s.turns = append(s.turns, t)
	}
	return s, sc.Err()
}

// Complete implements Client.
func (s *Script) Complete(ctx context.Context, req Request, h Handler) (Response, error) {
	if IsTitleRequest(req) {
		return s.play(ctx, ScriptTurn{Text: s.titleFor(req.Conversation())}, h, 0)
	}
	s.mu.Lock()
	if s.next >= len(s.turns) {
		s.mu.Unlock()
		return s.play(ctx, ScriptTurn{Text: "(end of script)"}, h, 0)
	}
	t, index := s.turns[s.next], s.next
	s.next++
	s.mu.Unlock()
	if err := check(t.Expect, req.Conversation()); err != nil {
		return Response{}, fmt.Errorf("%s turn %d: %w", s.name, index+1, err)
	}
	return s.play(ctx, t, h, index)
}

// titleFor is a title request's answer: the script's title, else the
// first words of the first user message.
func (s *Script) titleFor(msgs []Message) string {
	if s.title != "" {
		return s.title
	}
	for _, m := range msgs {
		if m.Role == "user" {
			words := strings.Fields(m.Content)
			return strings.Join(words[:min(len(words), 6)], " ")
		}
	}
	return "(untitled)"
}

func check(expects []ScriptExpect, msgs []Message) error {
	results := map[string]string{}
	for _, m := range msgs {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Content
		}
	}
	for _, e := range expects {
		got, ok := results[e.ID]
		switch {
		case !ok:
			return fmt.Errorf("expected a tool result for %q, got none", e.ID)
		case !strings.Contains(got, e.Contains):
			return fmt.Errorf("tool result %q does not contain %q: %q", e.ID, e.Contains, got)
		case e.Error != nil && *e.Error != strings.HasPrefix(got, "Error: "):
			return fmt.Errorf("tool result %q: error=%v expected, got %q", e.ID, *e.Error, got)
		}
	}
	return nil
}

// play streams a turn through the handler, in small pieces as a real model
// would.
func (s *Script) play(ctx context.Context, t ScriptTurn, h Handler, index int) (Response, error) {
	resp := Response{Text: t.Text, Reasoning: t.Reasoning, FinishReason: t.Finish}
	stream := func(text string, f func(string)) error {
		for text != "" {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			n := min(len(text), 12)
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
			if f != nil {
				f(text[:n])
			}
			text = text[n:]
		}
		return nil
	}
	if err := stream(t.Reasoning, h.OnReasoning); err != nil {
		return resp, err
	}
	if err := stream(t.Text, h.OnText); err != nil {
		return resp, err
	}
	for i, c := range t.ToolCalls {
		args := string(c.Arguments)
		var str string
		if json.Unmarshal(c.Arguments, &str) == nil {
			args = str // a string holds raw argument text
		}
		if args == "" {
			args = "{}"
		}
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("script_%d_%d", index+1, i+1)
		}
		tc := ToolCall{ID: id, Name: c.Name, Arguments: args}
		resp.ToolCalls = append(resp.ToolCalls, tc)
		if h.OnToolCall != nil {
			h.OnToolCall(tc)
		}
	}
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = "tool_calls"
		}
	}
	return resp, ctx.Err()
}
