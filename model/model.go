package model

import (
	"context"
	"errors"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Message is one chat message of the conversation history. It is a plain
// value: a History keeps the encodings of its messages.
type Message struct {
	Role    string // "user", "assistant" or "tool" (the system prompt is Request.System)
	Content string // text
	// Reasoning is the assistant's reasoning. For DeepSeek models it is sent
	// back, always (even ""), on every assistant message that has tool
	// calls, as the API requires; it is never sent on other messages.
	Reasoning  string
	ToolCalls  []ToolCall // assistant tool calls
	ToolCallID string     // the call a "tool" message answers
}

// ToolCall is one complete tool call the model made.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // raw JSON text, as the model wrote it
}

// Tool is a tool the model may call. A Chat keeps each tool's encoding
// while its name, description and parameters stay the same, so a caller
// that passes the same Parameters value each request encodes it once.
type Tool struct {
	Name        string
	Description string
	Parameters  jsonv.Value // the arguments' JSON Schema; zero: no parameters
}

// Thinking is a thought level: how much the model reasons before it
// answers. The zero value leaves the model's default.
type Thinking string

// Thought levels. ThinkingOff disables thinking; High and Max set
// DeepSeek's reasoning_effort.
const (
	ThinkingDefault Thinking = ""
	ThinkingOff     Thinking = "off"
	ThinkingHigh    Thinking = "high"
	ThinkingMax     Thinking = "max"
)

// Request is one model request.
type Request struct {
	Model  string // the model id; empty uses the client's default
	System string // the system prompt, sent first
	// History is the conversation after the system prompt: a session's,
	// whose encodings Complete keeps there, so that each request encodes
	// only the messages added since the last. When it is nil, Messages is
	// the conversation, encoded whole.
	History  *History
	Messages []Message
	Tools    []Tool
	Thinking Thinking
	// MaxTokens caps the completion (0: the model's default).
	MaxTokens int
}

// Conversation is the messages after the system prompt: History's when
// set, else Messages. The caller must not change them.
func (r *Request) Conversation() []Message {
	if r.History != nil {
		return r.History.Messages()
	}
	return r.Messages
}

// Usage is a request's token usage. CacheHit and CacheMiss split the prompt
// tokens where the API reports it (DeepSeek's prompt_cache_hit_tokens and
// prompt_cache_miss_tokens; OpenAI's prompt_tokens_details.cached_tokens).
type Usage struct {
	PromptTokens, CompletionTokens, TotalTokens int64
	CacheHit, CacheMiss                         int64
	// ReasoningTokens are the completion tokens spent thinking, where the
	// API reports them (completion_tokens_details.reasoning_tokens).
	ReasoningTokens int64
	// CacheKnown reports whether the API split the prompt tokens.
	CacheKnown bool
}

// Response is a finished model response.
type Response struct {
	Text         string
	Reasoning    string
	ToolCalls    []ToolCall
	FinishReason string // "stop", "tool_calls", "length", "content_filter", …
	Usage        Usage
	Model        string // the model that answered, as the API names it
	// Announced, on a cut stream, holds the tool calls that were announced
	// through OnToolCall before the cut; they never ran.
	Announced []ToolCall
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
	// the stream and returns ctx's error. On any error the Response holds
	// what streamed before it.
	Complete(ctx context.Context, req Request, h Handler) (Response, error)
}

// Lister is a Client that can list the models its endpoint serves.
type Lister interface {
	Models(ctx context.Context) ([]string, error)
}

// ErrNoAPIKey means no API key was configured for a model that needs one.
var ErrNoAPIKey = errors.New("no API key: set DSH_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY), or use a script:PATH model")
