// Command hostile is red-lsp2's hostile language server, built and run by
// the lsp package's TestRed2 tests: it speaks LSP's framing on stdio and
// then misbehaves as its first argument says.
//
// Modes:
//
//	answer      answers requests with the raw JSON results in the file
//	            $RED2_RESULTS (an object by method); "ECHO" answers a
//	            position request with a Location at the asked position
//	progress    on didOpen: $RED2_N $/progress begin notifications with
//	            distinct tokens (never ended), then one diagnostic for the
//	            opened file
//	diagflood   on didOpen: diagnostics for $RED2_N files under the first
//	            workspace folder, 100 each of 1000-byte messages, then one
//	            for the opened file
//	stuck       after didSave: stops reading its input and sends
//	            workspace/configuration requests whose answers fill it
//	stuckmany   after didSave: stops reading its input and sends $RED2_N
//	            workspace/configuration requests of one item each
//	config      on didOpen: a workspace/configuration request of $RED2_N
//	            items, its answer's size written to the file $RED2_OUT,
//	            then one diagnostic for the opened file
//	publish     on didOpen: one diagnostic for each URI in the file
//	            $RED2_URIS (one a line; ROOT is the workspace folder's
//	            path), then one for the opened file
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/lsptest/lspframe"
)

type message struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	size   int              // the body's length
}

var (
	out   = bufio.NewWriterSize(os.Stdout, 1<<16)
	outMu sync.Mutex
)

func send(v any) {
	outMu.Lock()
	defer outMu.Unlock()
	_ = lspframe.Write(out, v) // a client gone is the test's to see
}

func reply(id *json.RawMessage, result any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func notify(method string, params any) {
	send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func read(r *bufio.Reader) (message, error) {
	body, err := lspframe.Read(r)
	if err != nil {
		return message{}, err
	}
	m := message{size: len(body)}
	err = json.Unmarshal(body, &m)
	return m, err
}

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	results := map[string]json.RawMessage{}
	if f := os.Getenv("RED2_RESULTS"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		if err := json.Unmarshal(b, &results); err != nil {
			panic(err)
		}
	}
	n, _ := strconv.Atoi(os.Getenv("RED2_N"))
	root := ""
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		m, err := read(in)
		if err != nil {
			os.Exit(0)
		}
		switch m.Method {
		case "initialize":
			var p struct {
				RootURI string `json:"rootUri"`
			}
			_ = json.Unmarshal(m.Params, &p)
			root = p.RootURI
			reply(m.ID, map[string]any{"capabilities": map[string]any{
				"textDocumentSync": 1, "definitionProvider": true, "referencesProvider": true,
				"hoverProvider": true, "documentSymbolProvider": true, "workspaceSymbolProvider": true}})
			continue
		case "initialized":
			if mode == "stuckinit" {
				stick()
			}
			continue
		case "shutdown":
			reply(m.ID, nil)
			continue
		case "exit":
			os.Exit(0)
		case "textDocument/didOpen":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			}
			_ = json.Unmarshal(m.Params, &p)
			switch mode {
			case "progress":
				pad := strings.Repeat("t", 100)
				for i := 0; i < n; i++ {
					notify("$/progress", map[string]any{"token": pad + strconv.Itoa(i), "value": map[string]any{"kind": "begin", "title": "x"}})
				}
			case "diagflood":
				msg := strings.Repeat("m", 1000)
				diags := make([]any, 100)
				for i := range diags {
					diags[i] = map[string]any{"range": rng(i, 0), "severity": 1, "message": msg}
				}
				for i := 0; i < n; i++ {
					notify("textDocument/publishDiagnostics", map[string]any{"uri": root + "/flood" + strconv.Itoa(i) + ".red", "diagnostics": diags})
				}
			case "config":
				items := strings.Repeat("{},", n)
				send(map[string]any{"jsonrpc": "2.0", "id": 77, "method": "workspace/configuration",
					"params": json.RawMessage(`{"items":[` + strings.TrimSuffix(items, ",") + `]}`)})
				for {
					a, err := read(in)
					if err != nil {
						os.Exit(0)
					}
					if a.Method == "" && a.ID != nil && string(*a.ID) == "77" {
						if err := os.WriteFile(os.Getenv("RED2_OUT"), []byte(strconv.Itoa(a.size)), 0o600); err != nil {
							panic(err)
						}
						break
					}
				}
			case "publish":
				b, err := os.ReadFile(os.Getenv("RED2_URIS"))
				if err != nil {
					panic(err)
				}
				rootPath := strings.TrimPrefix(root, "file://")
				for _, u := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					notify("textDocument/publishDiagnostics", map[string]any{"uri": strings.ReplaceAll(u, "ROOT", rootPath),
						"diagnostics": []any{map[string]any{"range": rng(0, 0), "severity": 1, "message": "from " + u}}})
				}
			}
			if mode == "progress" || mode == "diagflood" || mode == "publish" || mode == "config" {
				notify("textDocument/publishDiagnostics", map[string]any{"uri": p.TextDocument.URI, "version": p.TextDocument.Version,
					"diagnostics": []any{map[string]any{"range": rng(0, 0), "severity": 1, "message": "marker"}}})
			}
			continue
		case "textDocument/didSave":
			if mode == "stuck" {
				stick()
			}
			if mode == "stuckmany" {
				for i := 0; i < n; i++ {
					send(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "workspace/configuration",
						"params": map[string]any{"items": []any{map[string]any{"section": "x"}}}})
				}
				for {
					time.Sleep(time.Hour)
				}
			}
			continue
		}
		if m.ID == nil {
			continue
		}
		r, ok := results[m.Method]
		switch {
		case ok && string(r) == `"ECHO"`:
			var p struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Position json.RawMessage `json:"position"`
			}
			_ = json.Unmarshal(m.Params, &p)
			reply(m.ID, map[string]any{"uri": p.TextDocument.URI, "range": map[string]any{"start": p.Position, "end": p.Position}})
		case ok:
			reply(m.ID, r)
		default:
			reply(m.ID, nil)
		}
	}
}

func rng(line, char int) map[string]any {
	p := map[string]any{"line": line, "character": char}
	return map[string]any{"start": p, "end": p}
}

// stick stops reading its input and asks for configurations whose
// answers (10000 nulls each) fill the pipe the client writes to: the
// client's reader blocks writing them.
func stick() {
	items := make([]any, 10000)
	for i := range items {
		items[i] = map[string]any{"section": "x"}
	}
	for i := 0; i < 16; i++ {
		send(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "workspace/configuration", "params": map[string]any{"items": items}})
	}
	for {
		time.Sleep(time.Hour)
	}
}
