package bridge

import (
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC and ACP error codes.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeResourceNotFound = -32002
	codeRequestCancelled = -32800
)

// Sentinels; handlers wrap them, and toWire converts them once, at the edge.
var (
	ErrMethodNotFound  = errors.New("method not found")
	ErrInvalidParams   = errors.New("invalid params")
	ErrSessionNotFound = errors.New("session not found")
	ErrBusy            = errors.New("a prompt is already running in this session")
	ErrCancelled       = errors.New("request cancelled")
)

func invalidParams(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidParams, fmt.Sprintf(format, args...))
}

// toWire converts a handler error into a JSON-RPC error with a real code
// (never 0; anything unknown is -32603).
func toWire(err error) *jsonrpc2.Error {
	var we *jsonrpc2.Error
	if errors.As(err, &we) && we.Code != 0 {
		return we
	}
	code := int64(codeInternalError)
	switch {
	case errors.Is(err, ErrMethodNotFound):
		code = codeMethodNotFound
	case errors.Is(err, ErrInvalidParams):
		code = codeInvalidParams
	case errors.Is(err, ErrSessionNotFound):
		code = codeResourceNotFound
	case errors.Is(err, ErrBusy):
		code = codeInvalidRequest
	case errors.Is(err, ErrCancelled):
		code = codeRequestCancelled
	}
	return &jsonrpc2.Error{Code: code, Message: err.Error()}
}
