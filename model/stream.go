package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// chunk is one streamed chat.completion.chunk, with DeepSeek's fields.
type chunk struct {
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *chunkUsage   `json:"usage"`
	Error   *chunkError   `json:"error"`
}

type chunkChoice struct {
	Delta        chunkDelta `json:"delta"`
	FinishReason string     `json:"finish_reason"`
}

type chunkDelta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    int           `json:"index"`
	ID       string        `json:"id"`
	Function functionDelta `json:"function"`
}

type functionDelta struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chunkUsage struct {
	PromptTokens          int64         `json:"prompt_tokens"`
	CompletionTokens      int64         `json:"completion_tokens"`
	TotalTokens           int64         `json:"total_tokens"`
	PromptCacheHitTokens  *int64        `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens *int64        `json:"prompt_cache_miss_tokens"`
	PromptTokensDetails   *cachedTokens `json:"prompt_tokens_details"`
	// CompletionTokensDetails splits the completion: DeepSeek's thinking
	// models report reasoning_tokens there, as OpenAI's reasoning models
	// do (the DeepSeek API's usage object as the deepseek-sdk 0.7.0 and
	// ds-api 0.10.7 crates decode it, docs.rs, read 2026-12-07).
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

type cachedTokens struct {
	CachedTokens int64 `json:"cached_tokens"`
}

type chunkError struct {
	Message string `json:"message"`
}

// maxEventBytes bounds one SSE event; a longer one is a broken stream.
const maxEventBytes = 16 << 20

// readers are readStream's line buffers, reused: a long turn makes a
// request per tool round. Nothing read is kept past readStream (events are copied
// into data, and decoded from there).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// readStream reads an SSE chat completions stream to its end.
func readStream(body io.Reader, h Handler) (Response, error) {
	var acc accumulator
	acc.h = h
	r := readers.Get().(*bufio.Reader)
	r.Reset(body)
	defer func() {
		r.Reset(nil) // the pool keeps no connection
		readers.Put(r)
	}()
	var data []byte
	done := false
	for !done {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole.
			full := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(full) < maxEventBytes {
				line, err = r.ReadSlice('\n')
				full = append(full, line...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				return acc.cut(fmt.Errorf("%w: an event is larger than %d bytes", ErrStreamCut, maxEventBytes))
			}
			line = full
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && len(data) > 0: // end of an event
			if bytes.Equal(data, []byte("[DONE]")) {
				done = true
				break
			}
			if cerr := acc.event(data); cerr != nil {
				return acc.cut(cerr)
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			payload := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, payload...)
		}
		if err != nil {
			if len(data) > 0 && !bytes.Equal(data, []byte("[DONE]")) {
				if cerr := acc.event(data); cerr != nil {
					return acc.cut(cerr)
				}
			}
			if errors.Is(err, io.EOF) && acc.resp.FinishReason != "" {
				break // ended without [DONE], but complete
			}
			if errors.Is(err, io.EOF) {
				return acc.cut(fmt.Errorf("%w: the stream ended before the answer did", ErrStreamCut))
			}
			return acc.cut(fmt.Errorf("%w: %v", ErrStreamCut, err))
		}
	}
	acc.flushAll()
	return acc.resp, nil
}

// event applies one SSE data payload.
func (a *accumulator) event(data []byte) error {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("%w: unreadable event: %v", ErrStreamCut, err)
	}
	if c.Error != nil {
		return fmt.Errorf("%w: the API reported: %s", ErrStreamCut, c.Error.Message)
	}
	if c.Model != "" {
		a.resp.Model = c.Model
	}
	if u := c.Usage; u != nil {
		a.resp.Usage = Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		if d := u.CompletionTokensDetails; d != nil {
			a.resp.Usage.ReasoningTokens = d.ReasoningTokens
		}
		switch {
		case u.PromptCacheHitTokens != nil && u.PromptCacheMissTokens != nil:
			a.resp.Usage.CacheHit, a.resp.Usage.CacheMiss = *u.PromptCacheHitTokens, *u.PromptCacheMissTokens
			a.resp.Usage.CacheKnown = true
		case u.PromptTokensDetails != nil:
			a.resp.Usage.CacheHit = u.PromptTokensDetails.CachedTokens
			a.resp.Usage.CacheMiss = u.PromptTokens - u.PromptTokensDetails.CachedTokens
			a.resp.Usage.CacheKnown = true
		}
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		if d.ReasoningContent != "" {
			a.reasoning(d.ReasoningContent)
		}
		if d.Content != "" {
			a.text(d.Content)
		}
		for _, tc := range d.ToolCalls {
			a.toolDelta(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if ch.FinishReason != "" {
			a.resp.FinishReason = ch.FinishReason
		}
	}
	return nil
}

// cut ends a broken stream: the text and reasoning that arrived are kept;
// tool calls are dropped, since none of them can be trusted to be whole
// (the ones already announced are the caller's to fail).
func (a *accumulator) cut(err error) (Response, error) {
	a.resp.ToolCalls = nil
	for _, i := range a.order() {
		if a.done[i] {
			a.resp.Announced = append(a.resp.Announced, a.call(i))
		}
	}
	return a.resp, err
}

// accumulator assembles streamed deltas into a Response and announces each
// tool call when the stream moves past it.
type accumulator struct {
	h       Handler
	resp    Response
	content strings.Builder
	reason  strings.Builder
	calls   map[int]*ToolCall
	args    map[int]*strings.Builder // each call's arguments so far: a long call's deltas append, never copy the whole again
	current int
	done    map[int]bool
}

func (a *accumulator) text(s string) {
	a.content.WriteString(s)
	a.resp.Text = a.content.String()
	if a.h.OnText != nil {
		a.h.OnText(s)
	}
}

func (a *accumulator) reasoning(s string) {
	a.reason.WriteString(s)
	a.resp.Reasoning = a.reason.String()
	if a.h.OnReasoning != nil {
		a.h.OnReasoning(s)
	}
}

func (a *accumulator) toolDelta(index int, id, name, args string) {
	if a.calls == nil {
		a.calls, a.args, a.done = map[int]*ToolCall{}, map[int]*strings.Builder{}, map[int]bool{}
	}
	if index != a.current {
		a.flush(a.current) // the model moved on: the previous call is complete
		a.current = index
	}
	tc, ok := a.calls[index]
	if !ok {
		tc = &ToolCall{}
		a.calls[index] = tc
		a.args[index] = &strings.Builder{}
	}
	if id != "" {
		tc.ID = id
	}
	tc.Name += name
	a.args[index].WriteString(args)
}

// call is the call at index with its arguments so far.
func (a *accumulator) call(index int) ToolCall {
	tc := a.calls[index]
	tc.Arguments = a.args[index].String()
	return *tc
}

func (a *accumulator) flush(index int) {
	tc, ok := a.calls[index]
	if !ok || a.done[index] {
		return
	}
	a.done[index] = true
	if tc.ID == "" {
		tc.ID = fmt.Sprintf("call_%d_%d", time.Now().UnixNano(), index)
	}
	if a.h.OnToolCall != nil {
		a.h.OnToolCall(a.call(index))
	}
}

func (a *accumulator) order() []int {
	idx := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return idx
}

func (a *accumulator) flushAll() {
	for _, i := range a.order() {
		a.flush(i)
		a.resp.ToolCalls = append(a.resp.ToolCalls, a.call(i))
	}
}
