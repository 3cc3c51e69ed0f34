package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

func TestToWire(t *testing.T) {
	busy := NewError(CodeInvalidRequest, "busy")
	for _, tc := range []struct {
		name string
		err  error
		code int64
	}{
		{"a plain error is internal", errors.New("boom"), CodeInternalError},
		{"a wire error without a code is internal, never 0", &jsonrpc2.Error{Message: "no code"}, CodeInternalError},
		{"a wire error keeps its code", &jsonrpc2.Error{Code: -32001, Message: "x"}, -32001},
		{"a wrapped wire error keeps its code", fmt.Errorf("fs/read_text_file: %w", &jsonrpc2.Error{Code: -32002, Message: "x"}), -32002},
		{"method not found", fmt.Errorf("%w: x", ErrMethodNotFound), CodeMethodNotFound},
		{"invalid params", InvalidParams("bad %d", 1), CodeInvalidParams},
		{"a sentinel of the caller's", busy, CodeInvalidRequest},
		{"a wrapped sentinel of the caller's", fmt.Errorf("%w: %q", NewError(CodeResourceNotFound, "session not found"), "s"), CodeResourceNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toWire(tc.err); got.Code != tc.code || got.Message == "" {
				t.Errorf("code %d message %q, want %d", got.Code, got.Message, tc.code)
			}
		})
	}
}

// withData is a DataError wrapping a sentinel.
type withData struct{ sentinel error }

func (e withData) Error() string { return "needs a key" }
func (e withData) Unwrap() error { return e.sentinel }
func (e withData) WireData() any { return map[string]any{"authMethods": []string{"a"}} }

func TestToWire_Data(t *testing.T) {
	got := toWire(fmt.Errorf("session/new: %w", withData{NewError(CodeAuthRequired, "authentication required")}))
	if got.Code != CodeAuthRequired || got.Data == nil || string(*got.Data) != `{"authMethods":["a"]}` {
		var d json.RawMessage
		if got.Data != nil {
			d = *got.Data
		}
		t.Errorf("code %d data %s, want -32000 with the error's data", got.Code, d)
	}
	if plain := toWire(InvalidParams("x")); plain.Data != nil {
		t.Errorf("an error without data got %s", *plain.Data)
	}
}
