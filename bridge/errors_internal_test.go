package bridge

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

func TestToWire(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int64
	}{
		{"a plain error is internal", errors.New("boom"), codeInternalError},
		{"a wire error without a code is internal, never 0", &jsonrpc2.Error{Message: "no code"}, codeInternalError},
		{"a wire error keeps its code", &jsonrpc2.Error{Code: -32001, Message: "x"}, -32001},
		{"method not found", fmt.Errorf("%w: x", ErrMethodNotFound), codeMethodNotFound},
		{"invalid params", invalidParams("bad %d", 1), codeInvalidParams},
		{"session not found", fmt.Errorf("%w: x", ErrSessionNotFound), codeResourceNotFound},
		{"busy", ErrBusy, codeInvalidRequest},
		{"cancelled", fmt.Errorf("%w", ErrCancelled), codeRequestCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toWire(tc.err); got.Code != tc.code || got.Message == "" {
				t.Errorf("code %d message %q, want %d", got.Code, got.Message, tc.code)
			}
		})
	}
}
