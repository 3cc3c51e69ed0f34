package acp

import (
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC and ACP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeResourceNotFound = -32002
	CodeRequestCancelled = -32800
	CodeAuthRequired     = -32000 // ACP's auth_required
)

// Error is a JSON-RPC error object: what an editor's call answers with
// when it fails, and what a handler's error becomes on the wire.
type Error = jsonrpc2.Error

// A CodedError is a sentinel that says its wire code: handlers wrap it
// (fmt.Errorf("%w: …")), and the connection converts the wrapped error to
// that code, with the error's text as the message, once, when it answers.
type CodedError struct {
	code int64
	msg  string
}

// NewError returns a sentinel for code; compare with errors.Is.
func NewError(code int64, msg string) *CodedError { return &CodedError{code, msg} }

func (e *CodedError) Error() string { return e.msg }

// Sentinels of the transport's own failures.
var (
	ErrMethodNotFound = NewError(CodeMethodNotFound, "method not found")
	ErrInvalidParams  = NewError(CodeInvalidParams, "invalid params")
)

// InvalidParams is an ErrInvalidParams with its reason.
func InvalidParams(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidParams, fmt.Sprintf(format, args...))
}

// toWire converts a handler error into a JSON-RPC error with a real code
// (never 0; anything unknown is -32603).
func toWire(err error) *jsonrpc2.Error {
	var we *jsonrpc2.Error
	if errors.As(err, &we) && we.Code != 0 {
		return we
	}
	code := int64(CodeInternalError)
	var ce *CodedError
	if errors.As(err, &ce) {
		code = ce.code
	}
	we = &jsonrpc2.Error{Code: code, Message: err.Error()}
	var de DataError
	if errors.As(err, &de) {
		we.SetError(de.WireData())
	}
	return we
}

// A DataError is an error whose wire form carries data (the JSON-RPC
// error's data member): what WireData returns, encoded.
type DataError interface {
	error
	WireData() any
}
