package bridge_test

// A small stdio harness for the red-hunks attacks: it builds the real
// binaries once, spawns bin/dsh-bridge with a scripted model in a scratch
// workspace, and plays the client (answering session/request_permission
// with a scripted answer). Everything is prefixed rh to stay clear of the
// package's other test helpers.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	rhBuildOnce sync.Once
	rhBinDir    string
	rhBuildErr  error
)

// rhBinary builds dsh-bridge and its helpers into a temporary folder, once.
func rhBinary(t *testing.T) string {
	t.Helper()
	rhBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rh-bin-")
		if err != nil {
			rhBuildErr = err
			return
		}
		rhBinDir = dir
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(file))
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/dsh-bridge", "./cmd/dsh-highlight", "./cmd/dsh-code", "./cmd/dsh-markdown")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			rhBuildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if rhBuildErr != nil {
		t.Fatal(rhBuildErr)
	}
	return filepath.Join(rhBinDir, "dsh-bridge")
}

type rhMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// rhClient is the editor side of one dsh-bridge process.
type rhClient struct {
	t     *testing.T
	ws    string // the workspace (cwd of the sessions)
	state string
	cmd   *exec.Cmd
	in    io.WriteCloser

	mu       sync.Mutex
	wmu      sync.Mutex
	next     int
	waiting  map[string]chan rhMsg
	updates  []rhMsg // session/update notifications, in order
	asked    []rhMsg // session/request_permission requests, in order
	log      []rhMsg // every message from the agent, in order
	onAsk    func(params json.RawMessage) any
	done     chan struct{}
	stderrMu sync.Mutex
	stderr   strings.Builder
}

// rhStartIn is rhStart.
func rhStartIn(t *testing.T, script []string) *rhClient { return rhStart(t, script) }

// rhStart spawns the bridge over the script lines (JSON objects).
func rhStart(t *testing.T, script []string) *rhClient {
	return rhStartWith(t, func(string) []string { return script })
}

// rhStartWith is rhStart with a script made knowing the workspace.
func rhStartWith(t *testing.T, scriptFor func(ws string) []string) *rhClient {
	t.Helper()

	bin := rhBinary(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	state := filepath.Join(root, "state")
	home := filepath.Join(root, "home")
	for _, d := range []string{ws, state, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := scriptFor(ws)
	scriptPath := filepath.Join(root, "script.jsonl")
	if err := os.WriteFile(scriptPath, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--model", "script:"+scriptPath)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "DSH_STATE_DIR="+state, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "DSH_MODEL=")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &rhClient{t: t, ws: ws, state: state, cmd: cmd, in: in, waiting: map[string]chan rhMsg{}, done: make(chan struct{})}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		b, _ := io.ReadAll(errPipe)
		c.stderrMu.Lock()
		c.stderr.Write(b)
		c.stderrMu.Unlock()
	}()
	go c.read(out)
	t.Cleanup(func() {
		in.Close()
		waited := make(chan struct{})
		go func() { cmd.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-waited
		}
		if t.Failed() {
			c.stderrMu.Lock()
			s := c.stderr.String()
			c.stderrMu.Unlock()
			if len(s) > 4000 {
				s = s[len(s)-4000:]
			}
			t.Logf("bridge stderr (tail):\n%s", s)
		}
	})
	return c
}

func (c *rhClient) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m rhMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		c.mu.Lock()
		c.log = append(c.log, m)
		c.mu.Unlock()
		switch {
		case m.Method != "" && len(m.ID) > 0: // a request from the agent
			c.answer(m)
		case m.Method == "session/update":
			c.mu.Lock()
			c.updates = append(c.updates, m)
			c.mu.Unlock()
		case m.Method == "" && len(m.ID) > 0:
			c.mu.Lock()
			ch := c.waiting[string(m.ID)]
			delete(c.waiting, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (c *rhClient) answer(m rhMsg) {
	var result any = map[string]any{}
	switch m.Method {
	case "session/request_permission":
		c.mu.Lock()
		c.asked = append(c.asked, m)
		ask := c.onAsk
		c.mu.Unlock()
		result = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
		if ask != nil {
			result = ask(m.Params)
		}
	default:
		c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not here"}})
		return
	}
	c.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

func (c *rhClient) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Error(err)
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.in.Write(append(b, '\n'))
}

// call sends a request and waits for its answer (a guard against a hung
// bridge, not a timed assertion).
func (c *rhClient) call(method string, params any) rhMsg {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := fmt.Sprint(c.next)
	ch := make(chan rhMsg, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.write(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-c.done:
		c.t.Fatalf("%s: the bridge ended", method)
	case <-time.After(90 * time.Second):
		c.t.Fatalf("%s: no answer", method)
	}
	return rhMsg{}
}

func (c *rhClient) init(caps map[string]any) {
	c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	r := c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps})
	if r.Error != nil {
		c.t.Fatalf("initialize: %+v", r.Error)
	}
}

func (c *rhClient) newSession() string {
	c.t.Helper()
	r := c.call("session/new", map[string]any{"cwd": c.ws, "mcpServers": []any{}})
	if r.Error != nil {
		c.t.Fatalf("session/new: %+v", r.Error)
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(r.Result, &res)
	return res.SessionID
}

func (c *rhClient) prompt(sid, text string, extra map[string]any) rhMsg {
	c.t.Helper()
	p := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	for k, v := range extra {
		p[k] = v
	}
	r := c.call("session/prompt", p)
	if r.Error != nil {
		c.t.Fatalf("session/prompt: %+v", r.Error)
	}
	return r
}

// rhUpdate is one session/update's interesting fields.
type rhUpdate struct {
	SessionID string
	Kind      string
	CallID    string
	Status    string
	Raw       json.RawMessage
}

func (c *rhClient) updatesSince(n int) []rhUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []rhUpdate
	for _, m := range c.updates[n:] {
		var p struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				SessionUpdate string `json:"sessionUpdate"`
				ToolCallID    string `json:"toolCallId"`
				Status        string `json:"status"`
			} `json:"update"`
		}
		json.Unmarshal(m.Params, &p)
		out = append(out, rhUpdate{SessionID: p.SessionID, Kind: p.Update.SessionUpdate, CallID: p.Update.ToolCallID, Status: p.Update.Status, Raw: m.Params})
	}
	return out
}

func (c *rhClient) nUpdates() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.updates)
}

func (c *rhClient) setAsk(f func(params json.RawMessage) any) {
	c.mu.Lock()
	c.onAsk = f
	c.mu.Unlock()
}

// rhAllowHunks answers allow_once (or opt) with _meta.dsh.hunks = raw JSON.
func rhAllowHunks(opt, raw string) func(json.RawMessage) any {
	return func(json.RawMessage) any {
		return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": opt},
			"_meta": map[string]any{"dsh": map[string]any{"hunks": json.RawMessage(raw)}}}
	}
}

// rhLine is one script line.
func rhLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// rhCall is a tool call of a script line.
func rhCall(id, name string, args any) map[string]any {
	return map[string]any{"id": id, "name": name, "arguments": args}
}

func rhRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rhResultText is the text content of the completed tool_call_update of id.
func rhResultText(us []rhUpdate, id string) (string, string) {
	for _, u := range us {
		if u.Kind == "tool_call_update" && u.CallID == id && (u.Status == "completed" || u.Status == "failed") {
			var p struct {
				Update struct {
					Content []struct {
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"content"`
				} `json:"update"`
			}
			json.Unmarshal(u.Raw, &p)
			var b strings.Builder
			for _, c := range p.Update.Content {
				b.WriteString(c.Content.Text)
			}
			return u.Status, b.String()
		}
	}
	return "", ""
}
