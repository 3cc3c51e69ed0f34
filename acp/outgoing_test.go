package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// SyncBuffer is a bytes.Buffer safe for a writer and readers at once.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines are the lines written so far.
func (b *SyncBuffer) lines() []string {
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// replyConn is a Conn, not serving, whose messages go to the returned
// buffer.
func replyConn(t *testing.T) (*Conn, *SyncBuffer) {
	out := &SyncBuffer{}
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	c := NewConn(pr, out, nil, Options{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { c.Close(time.Second) })
	return c, out
}

// TestReply: a reply written in one pass says what jsonrpc2's encoding
// says, for every kind of id, a result, a null result and an error.
func TestReply(t *testing.T) {
	value, _ := jsonv.FromGo(map[string]any{"a": []any{1, "x"}})
	for _, tc := range []struct {
		name    string
		id      jsonrpc2.ID
		result  any
		wireErr *jsonrpc2.Error
	}{
		{"number", jsonrpc2.ID{Num: 7}, map[string]any{"stopReason": "end_turn"}, nil},
		{"zero", jsonrpc2.ID{}, struct{}{}, nil},
		{"largest number", jsonrpc2.ID{Num: math.MaxUint64}, true, nil},
		{"string", jsonrpc2.ID{Str: "abc", IsString: true}, "ok", nil},
		{"string needing escapes", jsonrpc2.ID{Str: "a\"b\\c\n<é>", IsString: true}, 1.5, nil},
		{"empty string", jsonrpc2.ID{IsString: true}, []string{"x"}, nil},
		{"null result", jsonrpc2.ID{Num: 2}, nil, nil},
		{"a lossless value", jsonrpc2.ID{Num: 3}, value, nil},
		{"an error", jsonrpc2.ID{Num: 4}, nil, &jsonrpc2.Error{Code: -32602, Message: "bad \"params\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, out := replyConn(t)
			if err := s.reply(tc.id, tc.result, tc.wireErr); err != nil {
				t.Fatal(err)
			}
			s.Flush()
			got := out.lines()
			if len(got) != 1 {
				t.Fatalf("%d lines: %q", len(got), got)
			}
			want := &jsonrpc2.Response{ID: tc.id, Error: tc.wireErr}
			if tc.wireErr == nil {
				if err := want.SetResult(tc.result); err != nil {
					t.Fatal(err)
				}
			}
			wantLine, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal([]byte(got[0]), &g); err != nil {
				t.Fatalf("not JSON: %s (%v)", got[0], err)
			}
			json.Unmarshal(wantLine, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("wrote %s\njsonrpc2 writes %s", got[0], wantLine)
			}
			var resp jsonrpc2.Response // and jsonrpc2 reads it back
			if err := json.Unmarshal([]byte(got[0]), &resp); err != nil || resp.ID != tc.id {
				t.Errorf("read back: id %+v, %v", resp.ID, err)
			}
		})
	}
}

// TestRespond_UnencodableResult: a result that cannot be written is
// answered with an internal error, never with silence (the client would
// wait for ever).
func TestRespond_UnencodableResult(t *testing.T) {
	s, out := replyConn(t)
	req := &jsonrpc2.Request{Method: "x/y", ID: jsonrpc2.ID{Num: 9}}
	s.respond(context.Background(), req, HandleOptional(func(context.Context, struct{}) (any, error) {
		return map[string]float64{"n": math.NaN()}, nil
	}))
	s.Flush()
	got := out.lines()
	var resp jsonrpc2.Response
	if len(got) != 1 || json.Unmarshal([]byte(got[0]), &resp) != nil || resp.ID.Num != 9 || resp.Error == nil ||
		resp.Error.Code != CodeInternalError || !strings.Contains(resp.Error.Message, "cannot be encoded") {
		t.Fatalf("wrote %q", got)
	}
}

// BenchmarkReply writes an answer the size of session/new's (the modes,
// and a model and a mode option of a few choices each) through jsonrpc2's
// Reply and in one pass, each iteration waiting until its line is
// written.
func BenchmarkReply(b *testing.B) {
	var opts []map[string]string
	for _, m := range []string{"deepseek-chat", "deepseek-reasoner", "deepseek-v4-flash", "deepseek-v4-pro"} {
		opts = append(opts, map[string]string{"value": m, "name": m, "description": "The model " + m + ", priced per million tokens"})
	}
	var modes []map[string]string
	for _, m := range []string{"default", "acceptEdits", "plan", "bypassPermissions"} {
		modes = append(modes, map[string]string{"id": m, "name": m, "description": "The mode " + m})
	}
	result := map[string]any{"sessionId": "2f1c9a7e-5b0d-4c3e-9a11-7d2e8f6b4c10", "modes": map[string]any{"currentModeId": "default", "availableModes": modes},
		"configOptions": []any{map[string]any{"id": "model", "name": "Model", "type": "select", "currentValue": "deepseek-chat", "options": opts},
			map[string]any{"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "default", "options": modes}}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pr, pw := io.Pipe()
	defer pw.Close()
	s := NewConn(pr, io.Discard, nil, Options{Log: log})
	stream := s.stream
	defer s.Close(time.Second)
	conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
	defer conn.Close()
	b.Run("jsonrpc2-reply", func(b *testing.B) {
		for b.Loop() {
			if err := conn.Reply(context.Background(), jsonrpc2.ID{Num: 2}, result); err != nil {
				b.Fatal(err)
			}
			stream.flush()
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := s.reply(jsonrpc2.ID{Num: 2}, result, nil); err != nil {
				b.Fatal(err)
			}
			stream.flush()
		}
	})
}
