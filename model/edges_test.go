package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestCapToolResult_Edge: a result of exactly max bytes is left as it is;
// one byte more loses its middle, with the note saying how much.
func TestCapToolResult_Edge(t *testing.T) {
	const max = 1000
	for _, tc := range []struct {
		name   string
		n      int
		capped bool
	}{
		{"one below the cap", max - 1, false},
		{"exactly at the cap", max, false},
		{"one past the cap", max + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.Repeat("#", tc.n) // a byte the note does not hold
			got := CapToolResult(s, max)
			if !tc.capped {
				if got != s {
					t.Errorf("got %d bytes, want the %d bytes unchanged: %.120q", len(got), tc.n, got)
				}
				return
			}
			if want := fmt.Sprintf(" of %d bytes omitted here", tc.n); !strings.Contains(got, want) || strings.Contains(got, "[… 0 of") {
				t.Errorf("got %.200q, want a note containing %q", got, want)
			}
			if kept := strings.Count(got, "#"); kept != max {
				t.Errorf("kept %d bytes of the result, want %d", kept, max)
			}
		})
	}
}

// TestChat_ContextTooLongRecognised: the API's refusal for length is
// recognised by its wording or by its code alone, so the loop compacts
// instead of failing the turn; other refusals are not.
func TestChat_ContextTooLongRecognised(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"the wording alone", 400, `{"error":{"message":"This model's maximum context length is 131072 tokens. However, you requested 140000 tokens","type":"invalid_request_error"}}`, true},
		{"the code alone, other wording", 400, `{"error":{"message":"Your input is longer than this model can take.","type":"invalid_request_error","code":"context_length_exceeded"}}`, true},
		{"the code in the message", 400, `{"error":{"message":"context_length_exceeded","type":"invalid_request_error"}}`, true},
		{"another code", 400, `{"error":{"message":"Invalid parameter: messages","type":"invalid_request_error","code":"invalid_value"}}`, false},
		{"the code on another status", 429, `{"error":{"message":"Slow down","code":"context_length_exceeded"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChat(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}, ChatConfig{Model: "deepseek-flash"})
			_, err := c.Complete(context.Background(), Request{}, Handler{})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("got %v, want an APIError", err)
			}
			if got := apiErr.ContextTooLong(); got != tc.want {
				t.Errorf("got ContextTooLong %v, want %v (%+v)", got, tc.want, apiErr)
			}
		})
	}
}
