package model

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// dialect selects what a message's encoding carries.
type dialect uint8

const (
	dialectOpenAI   dialect = iota // plain chat completions
	dialectDeepSeek                // reasoning_content on tool-call messages
)

// Footprint is the bytes msgs hold: their text (content, reasoning, tool
// call ids, names and arguments). It is what a history costs in memory,
// give or take the headers of strings and slices, before the encodings a
// History caches (History.Footprint).
func Footprint(msgs []Message) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		n += len(m.Role) + len(m.Content) + len(m.Reasoning) + len(m.ToolCallID)
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Name) + len(tc.Arguments)
		}
	}
	return n
}

// wireOf returns m's encoding in dialect d after a comma (",{…}": the
// separator a message needs in the list unless it comes first). With the
// comma in it, a request is one piece per message, not two. A History
// keeps what it returns for its messages.
//
// The encoding is written into a pooled scratch buffer and copied out at
// its exact size, since a History keeps it as long as the message (sizing
// it first, a scan of every string for its escapes, costs more than the
// copy: BenchmarkWireOf).
func wireOf(m *Message, d dialect) []byte {
	sp := scratch.Get().(*[]byte)
	b := appendMessage(append((*sp)[:0], ','), m, d)
	out := bytes.Clone(b)
	if cap(b) <= maxScratch { // a rare huge message's buffer is not kept
		*sp = b
		scratch.Put(sp)
	}
	return out
}

// scratch holds wireOf's buffers, of up to maxScratch bytes.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxScratch = 1 << 20

// appendMessage writes one chat message object.
func appendMessage(dst []byte, m *Message, d dialect) []byte {
	dst = append(dst, `{"role":`...)
	dst = appendString(dst, m.Role)
	switch m.Role {
	case "tool":
		dst = append(dst, `,"tool_call_id":`...)
		dst = appendString(dst, m.ToolCallID)
		dst = append(dst, `,"content":`...)
		dst = appendString(dst, m.Content)
	case "assistant":
		if m.Content != "" || len(m.ToolCalls) == 0 {
			dst = append(dst, `,"content":`...)
			dst = appendString(dst, m.Content)
		}
		if len(m.ToolCalls) > 0 {
			if d == dialectDeepSeek {
				// Required on every tool-call message in thinking mode,
				// even when the model reasoned nothing.
				dst = append(dst, `,"reasoning_content":`...)
				dst = appendString(dst, m.Reasoning)
			}
			dst = append(dst, `,"tool_calls":[`...)
			for i, tc := range m.ToolCalls {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"id":`...)
				dst = appendString(dst, tc.ID)
				dst = append(dst, `,"type":"function","function":{"name":`...)
				dst = appendString(dst, tc.Name)
				dst = append(dst, `,"arguments":`...)
				dst = appendString(dst, tc.Arguments)
				dst = append(dst, "}}"...)
			}
			dst = append(dst, ']')
		}
	default:
		dst = append(dst, `,"content":`...)
		dst = appendString(dst, m.Content)
	}
	return append(dst, '}')
}

// toolCache keeps each tool's encoding; a tool is re-encoded only when its
// name, description or parameters change.
type toolCache struct {
	mu    sync.Mutex
	tools map[string]cachedTool
}

type cachedTool struct {
	desc   string
	schema jsonv.Value // immutable: the same Value has the same bytes
	params []byte
	b      []byte
}

func (c *toolCache) appendTools(dst []byte, tools []Tool) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil {
		c.tools = map[string]cachedTool{}
	}
	dst = append(dst, '[')
	for i, t := range tools {
		if i > 0 {
			dst = append(dst, ',')
		}
		ct, ok := c.tools[t.Name]
		if ok && ct.desc == t.Description && ct.schema != t.Parameters && bytes.Equal(ct.params, t.Parameters.Bytes()) {
			ct.schema = t.Parameters // an equal schema built anew
			c.tools[t.Name] = ct
		}
		if !ok || ct.desc != t.Description || ct.schema != t.Parameters {
			params := t.Parameters.Bytes()
			b := append([]byte(`{"type":"function","function":{"name":`), nil...)
			b = appendString(b, t.Name)
			b = append(b, `,"description":`...)
			b = appendString(b, t.Description)
			b = append(b, `,"parameters":`...)
			if len(params) == 0 {
				params = []byte(`{"type":"object","properties":{}}`)
			}
			b = append(b, params...)
			b = append(b, "}}"...)
			ct = cachedTool{desc: t.Description, schema: t.Parameters, params: params, b: b}
			c.tools[t.Name] = ct
		}
		dst = append(dst, ct.b...)
	}
	return append(dst, ']')
}

// appendString writes s as a JSON string (invalid UTF-8 from binary tool
// output becomes U+FFFD).
func appendString(dst []byte, s string) []byte { return jsonv.AppendString(dst, s) }

// bodyParts writes a whole request — model, messages (system first,
// then the history's encodings), tools, streaming and, for DeepSeek
// models, the thinking controls — as the pieces it is written from, and
// their total size. Fields come in a fixed order, so successive requests
// of a session share their prefix byte for byte. The cached message
// encodings are handed out as they are, so a request over a long history
// is never joined into one buffer (the HTTP client reads the pieces
// through a partsReader).
func (c *Chat) bodyParts(req *Request, modelID string) (parts [][]byte, size int) {
	d := dialectOpenAI
	if IsDeepSeek(modelID) {
		d = dialectDeepSeek
	}
	head := make([]byte, 0, 64+len(req.System)+len(req.System)/8)
	head = append(head, `{"model":`...)
	head = appendString(head, modelID)
	head = append(head, `,"messages":[`...)
	if req.System != "" {
		sys := Message{Role: "system", Content: req.System}
		head = appendMessage(head, &sys, d)
	}
	if req.History != nil { // its encodings are kept: only new messages are encoded
		parts, size = req.History.parts(head, d)
	} else {
		parts = make([][]byte, 0, len(req.Messages)+2)
		parts = append(parts, head)
		for i := range req.Messages {
			w := wireOf(&req.Messages[i], d) // ",{…}"
			parts = append(parts, w)
			size += len(w)
		}
	}
	if len(parts) > 1 && req.System == "" {
		parts[1] = parts[1][1:] // the list's first element: no comma
		size--
	}
	size += len(head)
	tail := c.bodyTail(req, d)
	return append(parts, tail), size + len(tail)
}

// bodyTail closes the messages and writes tools, streaming and the
// thinking controls.
func (c *Chat) bodyTail(req *Request, d dialect) []byte {
	b := make([]byte, 0, 128+c.lastToolsLen())
	b = append(b, ']')
	if len(req.Tools) > 0 {
		b = append(b, `,"tools":`...)
		start := len(b)
		b = c.tools.appendTools(b, req.Tools)
		c.toolsLen.Store(int64(len(b) - start))
	}
	b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	if req.MaxTokens > 0 {
		b = append(b, `,"max_tokens":`...)
		b = strconv.AppendInt(b, int64(req.MaxTokens), 10)
	}
	if d == dialectDeepSeek {
		switch req.Thinking {
		case ThinkingOff:
			b = append(b, `,"thinking":{"type":"disabled"}`...)
		case ThinkingHigh, ThinkingMax:
			b = append(b, `,"thinking":{"type":"enabled"},"reasoning_effort":`...)
			b = appendString(b, string(req.Thinking))
		}
	}
	return append(b, '}')
}

func (c *Chat) lastToolsLen() int { return int(c.toolsLen.Load()) }
