// Command fakels is a misbehaving language server for tests: it speaks
// LSP's framing on stdio and then fails as its first argument says.
//
//	hang         reads every message, answers none (initialize included)
//	crash        exits (status 3) on its first message
//	crash-later  answers initialize, then exits on the next message
//	silent       answers initialize and requests, publishes nothing
//	deaf         answers initialize, then reads nothing more (its input
//	             pipe fills)
//
// With a second argument, it writes its pid to that file first.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/lsptest/lspframe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fakels hang|crash|crash-later|silent|deaf [PIDFILE]")
		os.Exit(2)
	}
	mode := os.Args[1]
	if len(os.Args) > 2 {
		f, err := os.OpenFile(os.Args[2], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	in := bufio.NewReader(os.Stdin)
	for n := 0; ; n++ {
		msg, err := read(in)
		if err != nil {
			os.Exit(0) // stdin closed
		}
		switch {
		case mode == "hang":
			continue
		case mode == "crash", mode == "crash-later" && n > 0:
			os.Exit(3)
		}
		if msg.ID == nil {
			continue // a notification
		}
		var result any
		if msg.Method == "initialize" {
			result = map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}
		}
		write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		if mode == "deaf" {
			time.Sleep(time.Hour) // alive, reading nothing
		}
	}
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// read reads one framed message.
func read(r *bufio.Reader) (message, error) {
	body, err := lspframe.Read(r)
	if err != nil {
		return message{}, err
	}
	var m message
	_ = json.Unmarshal(body, &m)
	return m, nil
}

func write(v any) { _ = lspframe.Write(os.Stdout, v) }
