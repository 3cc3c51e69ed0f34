// Command hostilels is a hostile language server for tests: it speaks
// LSP's framing on stdio, answers initialize, and then attacks its client
// as its first argument says, each time a document is opened or changed:
//
//	publish FILE  sends each publishDiagnostics params of the JSON list in
//	              FILE, in order, then the document's own (one error,
//	              "version N")
//	version       publishes the document's one error, "version N", of the
//	              version didOpen or didChange gave
//	flood N       publishes an error for N distinct files next to the
//	              document, then the document's own
//	badheader     writes a malformed header, then stays up, silent
//	huge N        writes a message of N MiB (a valid notification), then
//	              stays up, silent
//
// The second argument is a file it appends its pid to.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/lsptest/lspframe"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: hostilels MODE PIDFILE [ARG]")
		os.Exit(2)
	}
	mode, arg := os.Args[1], ""
	if len(os.Args) > 3 {
		arg = os.Args[3]
	}
	if f, err := os.OpenFile(os.Args[2], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReader(os.Stdin)
	for {
		msg, err := read(in)
		if err != nil {
			os.Exit(0) // stdin closed
		}
		switch msg.Method {
		case "initialize":
			send(out, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{"textDocumentSync": 1}}})
			continue
		case "shutdown":
			send(out, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
			continue
		case "exit":
			os.Exit(0)
		case "textDocument/didOpen", "textDocument/didChange":
		default:
			if msg.ID != nil {
				send(out, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
			}
			continue
		}
		uri, version := msg.Params.TextDocument.URI, msg.Params.TextDocument.Version
		switch mode {
		case "publish":
			b, err := os.ReadFile(arg)
			if err != nil {
				panic(err)
			}
			var list []json.RawMessage
			if err := json.Unmarshal(b, &list); err != nil {
				panic(err)
			}
			for _, p := range list {
				send(out, map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": p})
			}
		case "flood":
			n, _ := strconv.Atoi(arg)
			dir := uri[:strings.LastIndexByte(uri, '/')]
			for i := 0; i < n; i++ {
				publish(out, fmt.Sprintf("%s/flood%05d.fake", dir, i), 0, "flood")
			}
		case "badheader":
			out.WriteString("Content-Length: twelve\r\n\r\n{}")
			out.Flush()
			time.Sleep(time.Hour)
		case "huge":
			mib, _ := strconv.Atoi(arg)
			head := `{"jsonrpc":"2.0","method":"window/logMessage","params":{"type":3,"message":"`
			tail := `"}}`
			pad := mib<<20 - len(head) - len(tail)
			fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(head)+pad+len(tail), head)
			chunk := strings.Repeat("x", 1<<16)
			for pad > 0 {
				n := min(pad, len(chunk))
				if _, err := out.WriteString(chunk[:n]); err != nil {
					os.Exit(1)
				}
				pad -= n
			}
			out.WriteString(tail)
			out.Flush()
			time.Sleep(time.Hour)
		}
		publish(out, uri, version, "version "+strconv.Itoa(version))
	}
}

func publish(out *bufio.Writer, uri string, version int, message string) {
	params := map[string]any{"uri": uri, "diagnostics": []any{map[string]any{
		"range":    map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}},
		"severity": 1, "message": message}}}
	if version > 0 {
		params["version"] = version
	}
	send(out, map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
	} `json:"params"`
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

func send(out *bufio.Writer, v any) {
	if lspframe.Write(out, v) != nil {
		os.Exit(1) // the client is gone
	}
}
