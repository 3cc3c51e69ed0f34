//go:build unix

package model

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/workspace"
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

func benchTools(b *testing.B) []Tool {
	reg := registry.New()
	ws, err := workspace.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dispose, err := tools.Register(reg, nil, tools.Options{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(dispose)
	var out []Tool
	for _, t := range reg.Schemas(nil) {
		out = append(out, Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return out
}

// BenchmarkWireOf encodes the result of a 100-line read as a tool message
// (wireOf, once per message in a session's life): a window of net/http's
// server.go of its own each iteration.
func BenchmarkWireOf(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var msgs []Message
	for i := range 64 {
		from := i * 137 % (len(lines) - 100)
		msgs = append(msgs, Message{Role: "tool", ToolCallID: "call_00_x", Content: strings.Join(lines[from:from+100], "\n")})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m := msgs[i%len(msgs)] // a copy, with nothing cached
		i++
		wireOf(&m, dialectDeepSeek)
	}
}

// BenchmarkRequestBody measures building one request body of a 200-message
// history with the built-in tools: on a cold history (every message
// encoded) and on a warm one (the per-turn cost: one new message, the rest
// cached in the History). The openai-go client this replaced took 6.55 ms
// per body for the same input (BENCHMARKS.md). warm-parts, as Complete
// sends it, is also measured over 1,500 messages (a 500-read turn's).
func BenchmarkRequestBody(b *testing.B) {
	hist := benchHistory(b, 1500)
	schemas := benchTools(b)
	const sys = "You are dsh-bridge, a coding agent working inside the user's editor."
	b.Run("chat-cold", func(b *testing.B) {
		c, _ := NewChat(ChatConfig{APIKey: "k"})
		var h History
		var n int
		for b.Loop() {
			h.Replace(hist[:200]) // no encoding kept
			n = len(c.body(&Request{System: sys, History: &h, Tools: schemas}, "deepseek-flash"))
		}
		b.ReportMetric(float64(n), "bytes/req")
	})
	b.Run("chat-warm", func(b *testing.B) {
		c, _ := NewChat(ChatConfig{APIKey: "k"})
		var h History
		h.Append(hist[:200]...)
		c.body(&Request{System: sys, History: &h, Tools: schemas}, "deepseek-flash")
		var n int
		for b.Loop() {
			forgetLast(&h) // the turn's new message
			n = len(c.body(&Request{System: sys, History: &h, Tools: schemas}, "deepseek-flash"))
		}
		b.ReportMetric(float64(n), "bytes/req")
	})
	// As Complete sends it: the pieces written to the connection, the
	// cached encodings never joined into one buffer.
	for _, size := range []int{200, 1500} {
		b.Run(fmt.Sprintf("chat-warm-parts-%d", size), func(b *testing.B) {
			c, _ := NewChat(ChatConfig{APIKey: "k"})
			var h History
			h.Append(hist[:size]...)
			c.body(&Request{System: sys, History: &h, Tools: schemas}, "deepseek-flash")
			var n int64
			for b.Loop() {
				forgetLast(&h)
				parts, _ := c.bodyParts(&Request{System: sys, History: &h, Tools: schemas}, "deepseek-flash")
				n, _ = io.Copy(io.Discard, &partsReader{parts: parts})
			}
			b.ReportMetric(float64(n), "bytes/req")
		})
	}
}

// forgetLast drops the encoding of h's last message, as if it had just
// come.
func forgetLast(h *History) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.wires[len(h.wires)-1]
	h.wires = h.wires[:len(h.wires)-1]
	h.wireLen, h.wireBytes = h.wireLen-len(w), h.wireBytes-cap(w)
}

// BenchmarkSendBody posts a 1,000-message request body (about 2.9 MB, as
// Complete sends it: the cached parts) to a server in another process (this
// test binary again: TestSinkServer) that drains it, through the default
// client. The CPU is this process's: the client's alone.
func BenchmarkSendBody(b *testing.B) {
	hist := benchHistory(b, 1000)
	c, _ := NewChat(ChatConfig{APIKey: "k"})
	parts, size := c.bodyParts(&Request{System: "s", Messages: hist}, "deepseek-flash")
	sink := exec.Command(os.Args[0])
	sink.Env = append(os.Environ(), "DSH_TEST_SINK=1")
	stdin, _ := sink.StdinPipe()
	stdout, _ := sink.StdoutPipe()
	if err := sink.Start(); err != nil {
		b.Fatal(err)
	}
	defer sink.Wait()
	defer stdin.Close() // the sink exits when its stdin ends
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	url := "http://" + strings.TrimSpace(addr)
	var cpu time.Duration
	for b.Loop() {
		t0 := processCPU()
		req, _ := http.NewRequest(http.MethodPost, url, nil)
		req.Body, req.ContentLength = &partsReader{parts: parts}, int64(size)
		resp, err := defaultClient().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cpu += processCPU() - t0
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/req")
	b.ReportMetric(float64(size), "bytes/req")
}

// TestMain serves as BenchmarkSendBody's server when DSH_TEST_SINK is set
// (this test binary run again): it prints its address, drains every
// request body, and exits when its stdin ends.
func TestMain(m *testing.M) {
	if os.Getenv("DSH_TEST_SINK") != "1" {
		os.Exit(m.Run())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	fmt.Println(ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
