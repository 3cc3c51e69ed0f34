package model

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// longCallStream is an SSE stream of one tool call whose arguments (size
// bytes) arrive 4 bytes to a delta, as DeepSeek streams them a token at a
// time.
func longCallStream(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"task","arguments":""}}]}}]}` + "\n\n")
	for range size / 4 {
		b.WriteString(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"xxxx"}}]}}]}` + "\n\n")
	}
	b.WriteString(`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// TestStream_LongArguments: a call's arguments streamed in many deltas
// arrive whole, in the announcement and in the response.
func TestStream_LongArguments(t *testing.T) {
	var announced ToolCall
	resp, err := readStream(bytes.NewReader(longCallStream(1<<16)), Handler{OnToolCall: func(tc ToolCall) { announced = tc }})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("x", 1<<16)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != want || announced.Arguments != want {
		t.Fatalf("arguments lost: %d calls, announced %d bytes", len(resp.ToolCalls), len(announced.Arguments))
	}
}

// BenchmarkLongArguments reads one call of 64 KB, 256 KB and 1 MB of
// arguments: the time per byte stays the same (the deltas are appended,
// not the whole copied again at each).
func BenchmarkLongArguments(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
		stream := longCallStream(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := readStream(bytes.NewReader(stream), Handler{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
