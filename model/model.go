// Package model holds the model clients the agent loop talks to: the
// OpenAI-compatible chat completions client (DeepSeek by default) and the
// Client interface that scripted and fake models implement.
package model

import (
	"context"
	"errors"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Message is one chat message of the conversation history.
type Message struct {
	Role       string     // "system", "user", "assistant" or "tool"
	Content    string     // text
	Reasoning  string     // assistant reasoning (kept for the log; never sent back)
	ToolCalls  []ToolCall // assistant tool calls
	ToolCallID string     // the call a "tool" message answers
}

// ToolCall is one complete tool call the model made.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // raw JSON text, as the model wrote it
}

// Request is one model request.
type Request struct {
	Messages []Message
	Tools    []registry.ToolSchema
}

// Usage is a request's token usage.
type Usage struct {
	PromptTokens, CompletionTokens, TotalTokens int64
}

// Response is a finished model response.
type Response struct {
	Text         string
	Reasoning    string
	ToolCalls    []ToolCall
	FinishReason string // "stop", "tool_calls", "length", "content_filter", …
	Usage        Usage
}

// Handler receives a response as it streams. Each callback is optional and
// is called from the goroutine that called Complete, in stream order.
type Handler struct {
	OnText      func(delta string)
	OnReasoning func(delta string)
	// OnToolCall is called once per tool call, as soon as the model has
	// finished writing it.
	OnToolCall func(ToolCall)
}

// Client is a chat model.
type Client interface {
	// Complete streams one response. It honours ctx: cancelling it stops
	// the stream and returns ctx's error.
	Complete(ctx context.Context, req Request, h Handler) (Response, error)
}

// ErrNoAPIKey means no API key was configured for a model that needs one.
var ErrNoAPIKey = errors.New("no API key: set DSH_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY), or use a script:PATH model")
