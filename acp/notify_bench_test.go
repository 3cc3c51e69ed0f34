package acp

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// BenchmarkNotifyReadCard measures writing one session/update that
// carries the read card of a real 2,000-line Go file: through jsonrpc2's
// Notify (as before: encoded, then re-encoded twice on the way out) and
// written directly, encoded once (now). Same stream, same payload.
func BenchmarkNotifyReadCard(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	lines := strings.Split(string(src), "\n")[:2000]
	rc := &card.Read{Title: "Read server.go", Path: "/w/server.go", Offset: 1, TotalLines: 2000, Lang: "go"}
	for i, l := range lines {
		rc.Lines = append(rc.Lines, card.ReadFileLine{Number: i + 1, Text: l})
	}
	update := views.Result(views.Env{Cwd: "/w"}, "c1", "read", nil, rc, false, nil)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pr, _ := io.Pipe()
	c := NewConn(pr, io.Discard, nil, Options{Log: log})
	stream := c.stream
	defer c.Close(time.Second)
	b.Run("jsonrpc2-notify", func(b *testing.B) {
		conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
		defer conn.Close()
		for b.Loop() {
			if err := conn.Notify(context.Background(), "session/update", map[string]any{"sessionId": "s", "update": update}); err != nil {
				b.Fatal(err)
			}
			stream.flush() // the line written, not only queued
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := c.Notify("session/update", map[string]any{"sessionId": "s", "update": update}); err != nil {
				b.Fatal(err)
			}
			stream.flush()
		}
	})
}
