package model

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

// benchHistory is a realistic 200-message tool loop: 66 rounds of an
// assistant message with a read call (and its reasoning) and the read's
// result, a real Go source file of the standard library, between user
// messages.
func benchHistory(b *testing.B, n int) []Message {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(files) == 0 {
		b.Skip("no GOROOT sources")
	}
	var msgs []Message
	for i := 0; len(msgs) < n; i++ {
		src, err := os.ReadFile(files[i%len(files)])
		if err != nil {
			b.Fatal(err)
		}
		if len(src) > 12_000 {
			src = src[:12_000]
		}
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			Message{Role: "assistant", Content: "Reading the next file.", Reasoning: "The handler is probably defined there; check it.",
				ToolCalls: []ToolCall{{ID: id, Name: "read", Arguments: fmt.Sprintf(`{"file_path":%q}`, files[i%len(files)])}}},
			Message{Role: "tool", ToolCallID: id, Content: string(src)},
			Message{Role: "user", Content: "Go on."})
	}
	return msgs[:n]
}

func benchTools(b *testing.B) []registry.ToolSchema {
	reg := registry.New()
	ws, err := tools.NewWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dispose, err := tools.Register(reg, nil, tools.Options{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(dispose)
	return reg.Schemas(nil)
}

// BenchmarkRequestBody measures building one request body of a 200-message
// history with the built-in tools: on a cold history (every message
// encoded) and on a warm one (the per-turn cost: one new message, the rest
// cached). The openai-go client this replaced took 6.55 ms per body for the
// same input (BENCHMARKS.md).
func BenchmarkRequestBody(b *testing.B) {
	hist := benchHistory(b, 200)
	schemas := benchTools(b)
	const sys = "You are dsh-bridge, a coding agent working inside the user's editor."
	b.Run("chat-cold", func(b *testing.B) {
		c, _ := NewChat(ChatConfig{APIKey: "k"})
		var n int
		for b.Loop() {
			h := append([]Message(nil), hist...)
			for i := range h {
				h[i].wire = nil
			}
			n = len(c.body(&Request{System: sys, Messages: h, Tools: schemas}, "deepseek-flash"))
		}
		b.ReportMetric(float64(n), "bytes/req")
	})
	b.Run("chat-warm", func(b *testing.B) {
		c, _ := NewChat(ChatConfig{APIKey: "k"})
		h := append([]Message(nil), hist...)
		c.body(&Request{System: sys, Messages: h, Tools: schemas}, "deepseek-flash")
		var n int
		for b.Loop() {
			h[len(h)-1].wire = nil // the turn's new message
			n = len(c.body(&Request{System: sys, Messages: h, Tools: schemas}, "deepseek-flash"))
		}
		b.ReportMetric(float64(n), "bytes/req")
	})
	// As Complete sends it: the pieces written to the connection, the
	// cached encodings never joined into one buffer.
	b.Run("chat-warm-parts", func(b *testing.B) {
		c, _ := NewChat(ChatConfig{APIKey: "k"})
		h := append([]Message(nil), hist...)
		c.body(&Request{System: sys, Messages: h, Tools: schemas}, "deepseek-flash")
		var n int64
		for b.Loop() {
			h[len(h)-1].wire = nil
			parts, _ := c.bodyParts(&Request{System: sys, Messages: h, Tools: schemas}, "deepseek-flash")
			n, _ = (&partsReader{parts: parts}).WriteTo(io.Discard)
		}
		b.ReportMetric(float64(n), "bytes/req")
	})
}

// BenchmarkSendBody posts a 1,000-message request body (about 2.9 MB, as
// Complete sends it: the cached parts) to a local server that drains it,
// through the default client (partsConn: the parts written with writev)
// and through http.DefaultClient (the body copied through a 32 KB buffer),
// alternating. The CPU is the whole process's (client and server).
func BenchmarkSendBody(b *testing.B) {
	hist := benchHistory(b, 1000)
	c, _ := NewChat(ChatConfig{APIKey: "k"})
	parts, size := c.bodyParts(&Request{System: "s", Messages: hist}, "deepseek-flash")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	send := func(client *http.Client) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
		req.Body, req.ContentLength = &partsReader{parts: parts}, int64(size)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
	clients := []struct {
		name   string
		client *http.Client
	}{{"parts-conn", defaultClient()}, {"copy", http.DefaultClient}}
	cpu := make([]time.Duration, len(clients))
	for b.Loop() {
		for i, cl := range clients {
			t0 := processCPU()
			send(cl.client)
			cpu[i] += processCPU() - t0
		}
	}
	for i, cl := range clients {
		b.ReportMetric(float64(cpu[i].Microseconds())/float64(b.N), cl.name+"-cpu-µs/req")
	}
	b.ReportMetric(float64(size), "bytes/req")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
