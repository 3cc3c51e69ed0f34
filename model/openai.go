package model

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI is a Client for any OpenAI-compatible chat completions API,
// through github.com/openai/openai-go/v3. DeepSeek's reasoning_content,
// which the SDK does not model, is read from the delta's extra fields.
type OpenAI struct {
	client openai.Client
	model  string
}

// OpenAIConfig configures an OpenAI client.
type OpenAIConfig struct {
	BaseURL    string
	APIKey     string
	Model      string
	MaxRetries int               // retries with backoff on 429, 5xx and connection errors (default 3)
	HTTPClient option.HTTPClient // nil: the SDK's default
}

// NewOpenAI returns a client; it fails without an API key.
func NewOpenAI(c OpenAIConfig) (*OpenAI, error) {
	if c.APIKey == "" {
		return nil, ErrNoAPIKey
	}
	retries := c.MaxRetries
	if retries == 0 {
		retries = 3
	}
	opts := []option.RequestOption{option.WithAPIKey(c.APIKey), option.WithMaxRetries(retries)}
	if c.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(strings.TrimSuffix(c.BaseURL, "/")+"/"))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	return &OpenAI{client: openai.NewClient(opts...), model: c.Model}, nil
}

// params builds the request body.
func (o *OpenAI) params(req Request) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(o.model)}
	p.StreamOptions.IncludeUsage = openai.Bool(true)
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case "user":
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case "tool":
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		case "assistant":
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	for _, t := range req.Tools {
		var params map[string]any
		_ = json.Unmarshal(t.Parameters.Bytes(), &params)
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(params),
		}))
	}
	return p
}

// Complete implements Client.
func (o *OpenAI) Complete(ctx context.Context, req Request, h Handler) (Response, error) {
	stream := o.client.Chat.Completions.NewStreaming(ctx, o.params(req))
	defer stream.Close()
	var acc accumulator
	acc.h = h
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			acc.resp.Usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens, TotalTokens: chunk.Usage.TotalTokens}
		}
		for _, ch := range chunk.Choices {
			d := ch.Delta
			if rc, ok := d.JSON.ExtraFields["reasoning_content"]; ok {
				var s string
				if json.Unmarshal([]byte(rc.Raw()), &s) == nil && s != "" {
					acc.reasoning(s)
				}
			}
			if d.Content != "" {
				acc.text(d.Content)
			}
			for _, tc := range d.ToolCalls {
				acc.toolDelta(int(tc.Index), tc.ID, tc.Function.Name, tc.Function.Arguments)
			}
			if ch.FinishReason != "" {
				acc.resp.FinishReason = ch.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return acc.resp, ctx.Err()
		}
		return acc.resp, fmt.Errorf("model request failed: %w", err)
	}
	acc.flushAll()
	return acc.resp, nil
}

// accumulator assembles streamed deltas into a Response and announces each
// tool call when the stream moves past it.
type accumulator struct {
	h       Handler
	resp    Response
	content strings.Builder
	reason  strings.Builder
	calls   map[int]*ToolCall
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
		a.calls, a.done = map[int]*ToolCall{}, map[int]bool{}
	}
	if index != a.current {
		a.flush(a.current) // the model moved on: the previous call is complete
		a.current = index
	}
	tc, ok := a.calls[index]
	if !ok {
		tc = &ToolCall{}
		a.calls[index] = tc
	}
	if id != "" {
		tc.ID = id
	}
	tc.Name += name
	tc.Arguments += args
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
		a.h.OnToolCall(*tc)
	}
}

func (a *accumulator) flushAll() {
	idx := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		a.flush(i)
		a.resp.ToolCalls = append(a.resp.ToolCalls, *a.calls[i])
	}
}
