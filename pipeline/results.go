package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Exact messages of the contract.
const (
	msgAborted               = "tool call aborted"
	msgAbortedBeforeDispatch = "tool call aborted before dispatch"
	msgArgsNotLossless       = "tool execution arguments must be losslessly JSON-serializable"
	msgResultNotLossless     = "tool result must be losslessly JSON-serializable"
	msgBlocked               = "tool result blocked by post-execute policy"
)

// failed returns the failure result for message and optional info.
func failed(message string, info *registry.ErrorInfo) registry.Result {
	message = strings.ToValidUTF8(message, "\uFFFD")
	return registry.Result{
		IsError: true,
		Error:   &registry.Failure{Message: message, Info: info},
		Content: []card.Content{card.Text("Error: " + message)},
	}
}

func aborted() registry.Result {
	return failed(msgAborted, &registry.ErrorInfo{Name: "AbortError", Code: registry.CodeAborted})
}

func abortedBeforeDispatch() registry.Result {
	return failed(msgAbortedBeforeDispatch, &registry.ErrorInfo{Name: "AbortError", Code: registry.CodeAbortedBeforeDispatch})
}

// fromError normalizes an error into a failure. A *registry.Error
// contributes its Name and Code; plain errors carry no info.
func fromError(err error) registry.Result {
	var e *registry.Error
	if errors.As(err, &e) && e.Code != "" {
		return failed(err.Error(), &registry.ErrorInfo{Name: e.Name, Code: e.Code})
	}
	return failed(err.Error(), nil)
}

// panicError converts a recovered panic value into an error: errors stay
// errors (so *registry.Error keeps its info), strings and Stringers give
// their text, anything else is formatted; a value whose formatting panics
// is "<unprintable thrown value>".
func panicError(p any) (err error) {
	switch v := p.(type) {
	case error:
		return v
	case string:
		return errors.New(v)
	}
	defer func() {
		if recover() != nil {
			err = errors.New("<unprintable thrown value>")
		}
	}()
	if s, ok := p.(fmt.Stringer); ok {
		return errors.New(s.String())
	}
	if m, ok := p.(interface{ Message() string }); ok {
		return errors.New(m.Message())
	}
	return errors.New(fmt.Sprint(p))
}

// protect calls fn and turns a panic into an error.
func protect(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	return fn()
}

// buildSuccess validates a body value against the tool's output contract
// and renders it; presentation meta only for top-level calls. It returns a
// failure (INVALID_TOOL_OUTPUT) when any step fails.
func buildSuccess(tool *registry.Tool, args, value jsonv.Value, topLevel bool) registry.Result {
	if !value.IsValid() {
		return fromError(registry.OutputError(tool.Name, []string{"value is not lossless JSON"}))
	}
	if v := tool.OutputSchema().Validate(value, "value"); v != nil {
		return fromError(registry.OutputError(tool.Name, v))
	}
	var content []card.Content
	err := protect(func() (err error) { content, err = tool.Output.Render(args, value); return err })
	if err != nil {
		return fromError(registry.OutputError(tool.Name, []string{"output.render failed: " + err.Error()}))
	}
	if !blocksValid(content) {
		return fromError(registry.OutputError(tool.Name, []string{"output.render returned non-lossless JSON"}))
	}
	r := registry.Result{Value: value, Content: content}
	if topLevel && tool.Output.PresentationMeta != nil {
		var meta jsonv.Value
		err := protect(func() (err error) { meta, err = tool.Output.PresentationMeta(args, value); return err })
		if err != nil {
			return fromError(registry.OutputError(tool.Name, []string{"output.presentationMeta failed: " + err.Error()}))
		}
		r.Meta = meta // an absent meta means "none"
	}
	return r
}

func blocksValid(blocks []card.Content) bool {
	for _, b := range blocks {
		if !b.IsValid() {
			return false
		}
	}
	return true
}

// materialized reports whether every part of r can be persisted losslessly.
func materialized(r registry.Result) bool {
	if !blocksValid(r.Content) {
		return false
	}
	for _, c := range r.AdditionalContexts {
		if !blocksValid(c.Content) {
			return false
		}
	}
	if r.IsError && r.Error == nil {
		return false
	}
	return true
}

// withContexts returns r with contexts prepended to its own.
func withContexts(r registry.Result, first []registry.ContextMessage) registry.Result {
	if len(first) == 0 {
		return r
	}
	r.AdditionalContexts = append(append([]registry.ContextMessage{}, first...), r.AdditionalContexts...)
	return r
}

// keepContexts returns repl carrying r's additional contexts.
func keepContexts(repl, r registry.Result) registry.Result {
	repl.AdditionalContexts = r.AdditionalContexts
	return repl
}

// blockMessage derives a blocked result's error message from its feedback.
func blockMessage(feedback []card.Content) string {
	parts := make([]string, 0, len(feedback))
	for _, b := range feedback {
		if b.Type() == card.TypeText {
			parts = append(parts, b.TextValue())
		} else {
			parts = append(parts, "["+b.Type()+" content]")
		}
	}
	if msg := strings.Join(parts, "\n"); msg != "" {
		return msg
	}
	return msgBlocked
}

// isCancellation reports whether err is the Go spelling of an abort caused
// by ctx: a context error while ctx is done.
func isCancellation(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
