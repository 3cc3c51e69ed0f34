//go:build unix

package bridge_test

// The red team's harness for checkpoints, rewind and fork: the built
// dsh-bridge binary spawned over stdio with a scripted model, driven as
// an editor would (no fs or terminal capability, so the bridge writes
// the disk itself).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	redBinOnce sync.Once
	redBin     string
	redBinErr  error
)

// redBinary builds cmd/dsh-bridge once per test binary.
func redBinary(t *testing.T) string {
	t.Helper()
	redBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "redrewind-bin-")
		if err != nil {
			redBinErr = err
			return
		}
		redBin = filepath.Join(dir, "dsh-bridge")
		out, err := exec.Command("go", "build", "-o", redBin, "../cmd/dsh-bridge").CombinedOutput()
		if err != nil {
			redBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if redBinErr != nil {
		t.Fatal(redBinErr)
	}
	return redBin
}

// redMsg is one JSON-RPC message.
type redMsg struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *redRPCError     `json:"error,omitempty"`
}

type redRPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *redRPCError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// redAgent is a running bridge.
type redAgent struct {
	t     *testing.T
	cmd   *exec.Cmd
	enc   *json.Encoder
	wmu   sync.Mutex
	mu    sync.Mutex
	next  int
	calls map[string]chan redMsg
	notes []json.RawMessage // session/update params, in order
	asked []json.RawMessage // session/request_permission params
	// Answer picks the option of a permission request (nil: the first
	// allow_once, else the first option).
	Answer func(params json.RawMessage) string
	done   chan struct{}
	State  string
}

// redStart spawns the bridge with script (JSONL lines) as its model;
// state is the state folder (made when empty).
func redStart(t *testing.T, state string, script []string) *redAgent {
	t.Helper()
	bin := redBinary(t)
	if state == "" {
		state = t.TempDir()
	}
	sp := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(sp, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "--model", "script:"+sp)
	cmd.Env = append(os.Environ(), "DSH_STATE_DIR="+state, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"DSH_API_KEY=red-team-test", "DSH_LOG_LEVEL=warn")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &redAgent{t: t, cmd: cmd, enc: json.NewEncoder(stdin), calls: map[string]chan redMsg{}, done: make(chan struct{}), State: state}
	go a.read(bufio.NewReader(stdout))
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-a.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-a.done
		}
		cmd.Wait()
		if t.Failed() {
			t.Logf("bridge stderr:\n%s", stderr.String())
		}
	})
	var init map[string]any
	if err := a.Call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, &init); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a *redAgent) read(r *bufio.Reader) {
	defer close(a.done)
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var m redMsg
			if json.Unmarshal(line, &m) == nil {
				a.handle(m)
			}
		}
		if err != nil {
			a.mu.Lock()
			for _, ch := range a.calls {
				close(ch)
			}
			a.calls = map[string]chan redMsg{}
			a.mu.Unlock()
			return
		}
	}
}

func (a *redAgent) handle(m redMsg) {
	switch {
	case m.Method != "" && m.ID == nil:
		if m.Method == "session/update" {
			a.mu.Lock()
			a.notes = append(a.notes, m.Params)
			a.mu.Unlock()
		}
	case m.Method != "":
		go a.respond(m) // an answer may wait; the read loop must not
	default:
		a.mu.Lock()
		ch := a.calls[string(*m.ID)]
		delete(a.calls, string(*m.ID))
		a.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// respond answers one of the bridge's calls.
func (a *redAgent) respond(m redMsg) {
	var res any = map[string]any{}
	if m.Method == "session/request_permission" {
		a.mu.Lock()
		a.asked = append(a.asked, m.Params)
		answer := a.Answer
		a.mu.Unlock()
		var opt string
		if answer != nil {
			opt = answer(m.Params)
		} else {
			opt = redAllow(m.Params)
		}
		res = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": opt}}
	}
	a.wmu.Lock()
	a.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	a.wmu.Unlock()
}

// redAllow is the first allow_once option of a permission request.
func redAllow(params json.RawMessage) string {
	var p struct {
		Options []struct{ OptionID, Kind string }
	}
	json.Unmarshal(params, &p)
	for _, o := range p.Options {
		if o.Kind == "allow_once" {
			return o.OptionID
		}
	}
	if len(p.Options) > 0 {
		return p.Options[0].OptionID
	}
	return ""
}

// Send starts a call and returns the channel its answer arrives on.
func (a *redAgent) Send(method string, params any) <-chan redMsg {
	a.mu.Lock()
	a.next++
	id := fmt.Sprint(a.next)
	ch := make(chan redMsg, 1)
	a.calls[id] = ch
	a.mu.Unlock()
	a.wmu.Lock()
	a.enc.Encode(map[string]any{"jsonrpc": "2.0", "id": a.next, "method": method, "params": params})
	a.wmu.Unlock()
	return ch
}

// Call makes a call and decodes its result into out; a JSON-RPC error is
// returned as *redRPCError.
func (a *redAgent) Call(method string, params, out any) error {
	select {
	case m, ok := <-a.Send(method, params):
		if !ok {
			return fmt.Errorf("%s: the bridge exited", method)
		}
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer", method)
	}
}

// NewSession opens a session on cwd.
func (a *redAgent) NewSession(cwd string) string {
	a.t.Helper()
	var r struct{ SessionID string }
	if err := a.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}}, &r); err != nil {
		a.t.Fatal(err)
	}
	return r.SessionID
}

// Prompt runs a turn and returns its user message id.
func (a *redAgent) Prompt(sid, text string, extra ...string) string {
	a.t.Helper()
	p := map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}}
	if len(extra) > 0 {
		p["messageId"] = extra[0]
	}
	var r struct {
		StopReason string
		Meta       struct {
			Dsh struct{ UserMessageID string }
		} `json:"_meta"`
	}
	if err := a.Call("session/prompt", p, &r); err != nil {
		a.t.Fatalf("prompt %q: %v", text, err)
	}
	return r.Meta.Dsh.UserMessageID
}

// redRewind is _dsh/session/rewind's answer.
type redRewind struct {
	Restored, Kept, NotRestorable, Failed []string
	Cancelled                             bool
}

func (a *redAgent) Rewind(sid, msg string) (redRewind, error) {
	var r redRewind
	err := a.Call("_dsh/session/rewind", map[string]any{"sessionId": sid, "toMessageId": msg}, &r)
	return r, err
}

// Texts are the agent_message_chunk texts of a session so far, joined.
func (a *redAgent) Texts(sid string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	for _, n := range a.notes {
		var u struct {
			SessionID string
			Update    struct {
				SessionUpdate string
				Content       struct{ Text string }
			}
		}
		json.Unmarshal(n, &u)
		if u.SessionID == sid && u.Update.SessionUpdate == "agent_message_chunk" {
			b.WriteString(u.Update.Content.Text)
		}
	}
	return b.String()
}

// UserTexts are the user_message_chunk texts of a session (a load's
// replay), in order.
func (a *redAgent) UserTexts(sid string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, n := range a.notes {
		var u struct {
			SessionID string
			Update    struct {
				SessionUpdate string
				Content       struct{ Text string }
			}
		}
		json.Unmarshal(n, &u)
		if u.SessionID == sid && u.Update.SessionUpdate == "user_message_chunk" {
			out = append(out, u.Update.Content.Text)
		}
	}
	return out
}

// redTurn is a script line: calls (name, JSON arguments) then, with no
// calls, a closing text.
func redTurn(calls ...[2]string) string {
	if len(calls) == 0 {
		return `{"text":"Done."}`
	}
	var cs []string
	for _, c := range calls {
		cs = append(cs, fmt.Sprintf(`{"name":%q,"arguments":%s}`, c[0], c[1]))
	}
	return `{"tool_calls":[` + strings.Join(cs, ",") + `]}`
}

func redJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func redWrite(path, content string) [2]string {
	return [2]string{"write", redJSON(map[string]string{"file_path": path, "content": content})}
}

func redBash(command string) [2]string {
	return [2]string{"bash", redJSON(map[string]string{"command": command, "description": "red team"})}
}

func redRead(path string) [2]string {
	return [2]string{"read", redJSON(map[string]string{"file_path": path})}
}

func redMustWrite(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func redReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// redWorkspace is a fresh workspace folder with its symbolic links
// resolved (the bridge reports resolved paths).
func redWorkspace(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
