package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// renderer prints session updates as a terminal editor would: streamed
// text, cards rendered by card type from `_meta.dsh`, approvals.
type renderer struct {
	mu      sync.Mutex
	w       io.Writer
	color   bool
	inText  bool // in the middle of streamed agent text
	inThink bool
	titles  map[string]string
	text    strings.Builder // all agent text, for the summary's checks
	// held is a finished read card waiting for its syntax tokens, which
	// follow in the next update; any other update prints it plain.
	held *heldRead
}

type heldRead struct {
	id     string
	card   card.Read
	queued []func() // what came while it waited, printed after it
	timer  *time.Timer
}

// tokenWait is how long a held read card waits for its tokens (the
// helper's first start included) before it is printed plain.
const tokenWait = 2 * time.Second

// flushRead prints the held read card with the given tokens (nil: plain).
func (r *renderer) flushRead(tokens highlight.TokenLines) {
	h := r.held
	if h == nil {
		return
	}
	r.held = nil
	h.timer.Stop()
	defer func() {
		for _, f := range h.queued {
			f()
		}
	}()
	for _, l := range strings.Split(strings.TrimRight(r.readText(&h.card, tokens), "\n"), "\n") {
		r.printf("    %s\n", l)
	}
	r.printf("\n")
}

// readText is a read card's lines, coloured by its tokens when colour is
// on.
func (r *renderer) readText(c *card.Read, tokens highlight.TokenLines) string {
	if r.color {
		return views.ANSI(c, tokens)
	}
	var b strings.Builder
	for _, l := range c.Lines {
		fmt.Fprintf(&b, "%4d │ %s\n", l.Number, l.Text)
	}
	return b.String()
}

func newRenderer(w io.Writer, color bool) *renderer {
	return &renderer{w: w, color: color, titles: map[string]string{}}
}

const (
	ansiReset = "\x1b[0m"
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiYell  = "\x1b[33m"
	ansiBlue  = "\x1b[34m"
)

func (r *renderer) c(code, s string) string {
	if !r.color {
		return s
	}
	return code + s + ansiReset
}

func (r *renderer) printf(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

// breakLine ends streamed text before a block is printed.
func (r *renderer) breakLine() {
	if r.inText || r.inThink {
		r.printf("\n")
	}
	r.inText, r.inThink = false, false
}

func (r *renderer) banner(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.printf("%s\n\n", r.c(ansiBold, s))
}

func (r *renderer) user(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.printf("%s %s\n\n", r.c(ansiBold+ansiBlue, "you ›"), s)
}

func (r *renderer) prompt(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushRead(nil) // what came before the question is shown first
	r.breakLine()
	r.printf("%s", r.c(ansiYell, "? "+s))
}

func (r *renderer) approval(title string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held != nil {
		r.held.queued = append(r.held.queued, func() { r.printApproval(title) })
		return
	}
	r.printApproval(title)
}

func (r *renderer) printApproval(title string) {
	r.breakLine()
	r.printf("%s %s %s\n", r.c(ansiYell, "?"), "Allow "+title+"?", r.c(ansiDim, "→ allowed once (automatic; --interactive to answer yourself)"))
}

func (r *renderer) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushRead(nil)
	r.breakLine()
}

// update renders one session/update.
func (r *renderer) update(raw json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.render(raw)
}

// render renders one update; r.mu is held.
func (r *renderer) render(raw json.RawMessage) {
	var u struct {
		SessionUpdate string `json:"sessionUpdate"`
		ToolCallID    string `json:"toolCallId"`
		Title         string `json:"title"`
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Content       json.RawMessage
		Meta          struct {
			Dsh struct {
				Card     json.RawMessage       `json:"card"`
				Changes  []views.FileChange    `json:"changes"`
				Terminal *views.TerminalMeta   `json:"terminal"`
				Parent   string                `json:"parentToolCallId"`
				Tokens   highlight.TokenLines  `json:"tokens"`
				Packed   highlight.PackedLines `json:"packedTokens"`
			} `json:"dsh"`
		} `json:"_meta"`
	}
	json.Unmarshal(raw, &u)
	if u.Meta.Dsh.Packed != nil {
		u.Meta.Dsh.Tokens = highlight.TokenLines(u.Meta.Dsh.Packed)
	}
	if r.held != nil {
		if u.ToolCallID == r.held.id && u.Meta.Dsh.Tokens != nil && u.Meta.Dsh.Card == nil {
			r.flushRead(u.Meta.Dsh.Tokens)
		} else {
			r.held.queued = append(r.held.queued, func() { r.render(raw) })
		}
		return
	}
	var chunk struct {
		Content struct{ Text string } `json:"content"`
	}
	switch u.SessionUpdate {
	case "agent_message_chunk":
		json.Unmarshal(raw, &chunk)
		if r.inThink {
			r.printf("\n")
			r.inThink = false
		}
		if !r.inText {
			r.printf("%s ", r.c(ansiBold+ansiGreen, "agent ›"))
			r.inText = true
		}
		r.printf("%s", chunk.Content.Text)
		r.text.WriteString(chunk.Content.Text)
	case "agent_thought_chunk":
		json.Unmarshal(raw, &chunk)
		if !r.inThink {
			r.breakLine()
			r.printf("%s ", r.c(ansiDim, "thinking ›"))
			r.inThink = true
		}
		r.printf("%s", r.c(ansiDim, chunk.Content.Text))
	case "tool_call":
		r.breakLine()
		r.titles[u.ToolCallID] = u.Title
		if u.Meta.Dsh.Parent != "" { // a run_code sub-call: nested under its program
			r.titles[u.ToolCallID] = "  ↳ " + u.Title
		}
		r.printf("%s %s %s\n", r.c(ansiCyan, "▶"), r.c(ansiBold, r.titles[u.ToolCallID]), r.c(ansiDim, "["+u.Kind+"]"))
	case "tool_call_update":
		if u.Status != "completed" && u.Status != "failed" {
			return
		}
		r.breakLine()
		mark := r.c(ansiGreen, "✓")
		if u.Status == "failed" {
			mark = r.c(ansiRed, "✗")
		}
		r.printf("%s %s\n", mark, r.titles[u.ToolCallID])
		var tag struct{ Card string }
		json.Unmarshal(u.Meta.Dsh.Card, &tag)
		if tag.Card == "read" && u.Status == "completed" {
			h := &heldRead{id: u.ToolCallID}
			json.Unmarshal(u.Meta.Dsh.Card, &h.card)
			h.timer = time.AfterFunc(tokenWait, func() {
				r.mu.Lock()
				defer r.mu.Unlock()
				if r.held == h {
					r.flushRead(nil)
				}
			})
			r.held = h
			return
		}
		r.card(u.Meta.Dsh.Card, u.Meta.Dsh.Changes, u.Content)
		r.printf("\n")
	}
}

// card renders a completed card by its card type.
func (r *renderer) card(raw json.RawMessage, changes []views.FileChange, content json.RawMessage) {
	var tag struct{ Card, Shape string }
	json.Unmarshal(raw, &tag)
	indent := func(s string) {
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			r.printf("    %s\n", l)
		}
	}
	switch tag.Card {
	case "diff":
		for _, ch := range changes {
			for _, h := range ch.Hunks {
				r.printf("    %s\n", r.c(ansiCyan, fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)))
				for _, l := range h.Lines {
					text := strings.TrimRight(l.Text, "\r\n")
					switch l.Op {
					case "-":
						r.printf("    %s\n", r.c(ansiRed, "-"+text))
					case "+":
						r.printf("    %s\n", r.c(ansiGreen, "+"+text))
					default:
						r.printf("    %s\n", r.c(ansiDim, " "+text))
					}
				}
			}
		}
	case "read": // a failed read's card (a completed one waits for its tokens)
		var rc card.Read
		json.Unmarshal(raw, &rc)
		indent(r.readText(&rc, nil))
	case "terminal":
		var tc card.TerminalResult
		json.Unmarshal(raw, &tc)
		indent(tc.Output)
		switch {
		case tc.Signal != "":
			r.printf("    %s\n", r.c(ansiRed, "killed by "+tc.Signal))
		case tc.ExitCode != nil && *tc.ExitCode != 0:
			r.printf("    %s\n", r.c(ansiRed, fmt.Sprintf("exit %d", *tc.ExitCode)))
		case tc.ExitCode != nil:
			r.printf("    %s\n", r.c(ansiGreen, "exit 0"))
		}
	case "search":
		if tag.Shape == "matches" {
			var sm card.SearchMatches
			json.Unmarshal(raw, &sm)
			for _, f := range sm.Files {
				r.printf("    %s\n", r.c(ansiBold, f.Path))
				for _, m := range f.Matches {
					r.printf("    %s %s\n", r.c(ansiDim, fmt.Sprintf("%4d:", m.LineNumber)), m.Line)
				}
			}
			r.printf("    %s\n", r.c(ansiDim, fmt.Sprintf("%d matches%s", sm.Total, map[bool]string{true: " (truncated)"}[sm.Truncated])))
			return
		}
		var sp card.SearchPaths
		json.Unmarshal(raw, &sp)
		indent(strings.Join(sp.Paths, "\n"))
	default: // generic and web: the text content
		var items []struct {
			Type    string `json:"type"`
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(content, &items)
		for _, it := range items {
			if it.Type == "content" {
				indent(it.Content.Text)
			}
		}
	}
}
