// Package rpctest drives a newline-delimited JSON-RPC peer in tests: the
// bridge served in-process, or run() of its main package.
package rpctest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// Caller sends requests to a peer and reads its answers.
type Caller struct {
	w     io.Writer
	lines *bufio.Scanner
}

// New returns a caller that writes requests to w and reads lines (up to
// 64 MiB each) from r.
func New(r io.Reader, w io.Writer) *Caller {
	lines := bufio.NewScanner(r)
	lines.Buffer(nil, 64<<20)
	return &Caller{w: w, lines: lines}
}

// Call sends one request with the given id, method and raw JSON params,
// and returns the line that answers it, skipping notifications, the
// peer's own requests and other answers. It fails t when the output ends
// first.
func (c *Caller) Call(t testing.TB, id int, method, params string) string {
	t.Helper()
	if _, err := fmt.Fprintf(c.w, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
		t.Fatalf("sending %s: %v", method, err)
	}
	for c.lines.Scan() {
		var m struct {
			ID     *int
			Method string
		}
		if json.Unmarshal(c.lines.Bytes(), &m) == nil && m.ID != nil && *m.ID == id && m.Method == "" {
			return c.lines.Text()
		}
	}
	t.Fatalf("no answer to %s: %v", method, c.lines.Err())
	return ""
}
