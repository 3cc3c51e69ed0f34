package main

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

//go:embed demo.jsonl
var demoScript []byte

// demoCodeScript is the Code Mode demo: one run_code program reads two
// files, edits one and runs a command, each a card of its own.
//
//go:embed demo_code.jsonl
var demoCodeScript []byte

// demoProject is the scratch workspace the demo works on.
var demoProject = map[string]string{
	"go.mod":  "module example.com/hello\n\ngo 1.26\n",
	"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(greet())\n}\n",
	"greet.go": "package main\n\n// greet returns the greeting.\nfunc greet() string {\n" +
		"\t// TODO: fix the typo\n\treturn \"Hello, wrold\"\n}\n",
}

// runDemo runs the real bridge as a child process with a built-in script
// and shows, like an editor would, what it streams.
func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	interactive := fs.Bool("interactive", false, "answer approval prompts yourself")
	noColor := fs.Bool("no-color", os.Getenv("NO_COLOR") != "", "plain output")
	bridgePath := fs.String("bridge", "", "the dsh-bridge binary to run (default: this one)")
	code := fs.Bool("code", false, "Code Mode: the agent writes one program (run_code) that calls the tools")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *bridgePath == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
		*bridgePath = exe
	}
	root, err := os.MkdirTemp("", "dsh-bridge-demo-")
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	ws, state := filepath.Join(root, "hello"), filepath.Join(root, "state")
	for name, content := range demoProject {
		os.MkdirAll(ws, 0o755)
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
	}
	script := filepath.Join(root, "demo.jsonl")
	if *code {
		os.WriteFile(script, demoCodeScript, 0o644)
	} else {
		os.WriteFile(script, demoScript, 0o644)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, *bridgePath)
	cmd.Env = append(os.Environ(), "DSH_MODEL=script:"+script, "DSH_STATE_DIR="+state, "DSH_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+filepath.Join(root, "config"))
	var logs strings.Builder
	cmd.Stderr = &logs
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "demo: starting the bridge:", err)
		return 1
	}
	c := &demoClient{w: in, pending: map[int]chan json.RawMessage{}, r: newRenderer(stdout, !*noColor), ask: bufio.NewReader(stdin), interactive: *interactive}
	go c.read(out)
	defer func() { in.Close(); cmd.Wait() }()

	start := time.Now()
	c.r.banner(fmt.Sprintf("dsh-bridge demo — a scripted agent fixes a typo in %s", ws))
	if _, err := c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		// It draws cards from _meta.dsh (docs/meta-dsh.md), colours included,
		// and takes the tokens packed, as dsh-bridge's extensions do.
		"_meta": map[string]any{"dsh": map[string]any{"version": 1, "packedTokens": true}},
	}}); err != nil {
		fmt.Fprintln(stderr, "demo:", err, logs.String())
		return 1
	}
	res, err := c.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(res, &sess)
	if *code {
		if _, err := c.call("session/set_config_option", map[string]any{"sessionId": sess.SessionID, "configId": "tools_mode", "value": "code"}); err != nil {
			fmt.Fprintln(stderr, "demo:", err)
			return 1
		}
	}
	prompt := "The greeting has a typo. Please fix it and show me the result."
	c.r.user(prompt)
	res, err = c.call("session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	var pr struct {
		StopReason string `json:"stopReason"`
	}
	json.Unmarshal(res, &pr)
	c.r.end()
	c.mu.Lock()
	done, failed, approvals := c.completed, c.failed, c.approvals
	c.mu.Unlock()
	fmt.Fprintf(stdout, "\ndemo: %s after %d tool calls (%d completed, %d failed), %d approvals, in %.1fs; session log: %s\n",
		pr.StopReason, done+failed, done, failed, approvals, time.Since(start).Seconds(), filepath.Join(state, sess.SessionID+".jsonl"))
	if pr.StopReason != "end_turn" || failed > 0 || strings.Contains(c.r.text.String(), "[model error") {
		fmt.Fprintln(stderr, "demo: the scripted run did not go as expected\n"+logs.String())
		return 1
	}
	return 0
}

// demoClient is a tiny ACP client: requests, and the bridge's requests
// answered (permissions only: the demo advertises no fs or terminal).
type demoClient struct {
	w           io.Writer
	wmu         sync.Mutex
	mu          sync.Mutex
	next        int
	pending     map[int]chan json.RawMessage
	r           *renderer
	ask         *bufio.Reader
	interactive bool

	completed, failed, approvals int
}

func (c *demoClient) send(v any) {
	b, _ := json.Marshal(v)
	c.wmu.Lock()
	c.w.Write(append(b, '\n'))
	c.wmu.Unlock()
}

func (c *demoClient) call(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan json.RawMessage, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case raw := <-ch:
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		json.Unmarshal(raw, &resp)
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, resp.Error.Message, resp.Error.Code)
		}
		return resp.Result, nil
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer", method)
	}
}

func (c *demoClient) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		line := append([]byte(nil), sc.Bytes()...)
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Method == "session/update":
			c.update(m.Params)
		case m.Method == "session/request_permission" && m.ID != nil:
			c.permission(*m.ID, m.Params)
		case m.Method == "" && m.ID != nil:
			c.mu.Lock()
			ch := c.pending[*m.ID]
			delete(c.pending, *m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- line
			}
		}
	}
}

func (c *demoClient) update(params json.RawMessage) {
	var n struct {
		Update json.RawMessage `json:"update"`
	}
	json.Unmarshal(params, &n)
	var u struct {
		SessionUpdate string `json:"sessionUpdate"`
		Status        string `json:"status"`
	}
	json.Unmarshal(n.Update, &u)
	if u.SessionUpdate == "tool_call_update" {
		c.mu.Lock()
		switch u.Status {
		case "completed":
			c.completed++
		case "failed":
			c.failed++
		}
		c.mu.Unlock()
	}
	c.r.update(n.Update)
}

func (c *demoClient) permission(id int, params json.RawMessage) {
	var p struct {
		ToolCall struct {
			Title string `json:"title"`
		} `json:"toolCall"`
	}
	json.Unmarshal(params, &p)
	option := "allow_once"
	if c.interactive {
		c.r.prompt(fmt.Sprintf("Allow %q? [y]es / [a]lways / [n]o: ", p.ToolCall.Title))
		line, _ := c.ask.ReadString('\n')
		switch strings.TrimSpace(strings.ToLower(line)) {
		case "a", "always":
			option = "allow_always"
		case "n", "no":
			option = "reject_once"
		}
	} else {
		c.r.approval(p.ToolCall.Title)
	}
	c.mu.Lock()
	c.approvals++
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}})
}
