package bridge_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dsh-bridge/dsh-bridge/bridge"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

var (
	binary    string // the dsh-bridge binary under test, built once
	schemaMu  sync.Mutex
	validator = map[string]*jsonschema.Schema{}
	compiler  *jsonschema.Compiler
)

// touchSources opens every Go file of the module. The binary under test is
// built with go build, invisible to the test cache; files a test opens are
// recorded, so a change to any source invalidates a cached result.
func touchSources() {
	filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			if f, err := os.Open(path); err == nil {
				f.Close()
			}
		}
		return nil
	})
}

var touchOnce sync.Once

func TestMain(m *testing.M) {
	// An in-process server's sandbox helper and namespace probe are this
	// test binary (os.Executable), as they are dsh-bridge in main.
	sandbox.Main(sandbox.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	dir, err := os.MkdirTemp("", "dsh-bridge-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "dsh-bridge")
	// The helpers go next to the bridge, where it finds them.
	build := exec.Command("go", "build", "-o", dir+"/", "../cmd/dsh-bridge", "../cmd/dsh-highlight", "../cmd/dsh-code", "../cmd/dsh-markdown")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build and the VSIX ship them
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building dsh-bridge and its helpers: %v\n%s", err, out)
		os.Exit(1)
	}
	if b := os.Getenv("DSH_BENCH_BRIDGE"); b != "" {
		binary = b // benchmarks of another build (a before/after), same harness
	}
	unplace := placeHelpers(dir)
	mcpServerBin = filepath.Join(dir, "mcptest-server")
	if out, err := exec.Command("go", "build", "-o", mcpServerBin, "../internal/mcptest/server").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the MCP test server: %v\n%s", err, out)
		os.Exit(1)
	}
	f, err := os.Open("../views/testdata/acp-schema.json")
	if err != nil {
		panic(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		panic(err)
	}
	compiler = jsonschema.NewCompiler()
	if err := compiler.AddResource("acp.json", doc); err != nil {
		panic(err)
	}
	code := m.Run()
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "bridges served in process: %d; started as the binary: %d\n", inProcessCount.Load(), binaryCount.Load())
	}
	unplace()
	os.RemoveAll(dir)
	os.Exit(code)
}

// validateUpdate checks a session/update's params: against acp.json's
// SessionNotification, or, for a subagent_update (which that snapshot
// predates), its sessionId against acp.json's SessionId and the update
// against the subagent package's schema of it.
func validateUpdate(params []byte) error {
	var n struct {
		SessionID json.RawMessage `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	if err := json.Unmarshal(params, &n); err != nil {
		return err
	}
	var tag struct {
		SessionUpdate string `json:"sessionUpdate"`
	}
	if json.Unmarshal(n.Update, &tag) != nil || tag.SessionUpdate != "subagent_update" {
		return validate("SessionNotification", params)
	}
	if err := validate("SessionId", n.SessionID); err != nil {
		return err
	}
	sch, err := subagentSchema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(n.Update))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// validate checks raw against an ACP $defs type.
func validate(def string, raw []byte) error {
	schemaMu.Lock()
	s, ok := validator[def]
	if !ok {
		var err error
		if s, err = compiler.Compile("acp.json#/$defs/" + def); err != nil {
			schemaMu.Unlock()
			return err
		}
		validator[def] = s
	}
	schemaMu.Unlock()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(doc)
}

// resultType is the schema of each method's result.
var resultType = map[string]string{
	"initialize": "InitializeResponse", "session/new": "NewSessionResponse", "session/prompt": "PromptResponse",
	"session/set_mode": "SetSessionModeResponse", "session/set_config_option": "SetSessionConfigOptionResponse",
	"session/delete": "DeleteSessionResponse", "session/list": "ListSessionsResponse",
}

// requestType is the schema of each agent-to-client request.
var requestType = map[string]string{
	"session/request_permission": "RequestPermissionRequest", "fs/read_text_file": "ReadTextFileRequest",
	"fs/write_text_file": "WriteTextFileRequest", "terminal/create": "CreateTerminalRequest",
	"terminal/output": "TerminalOutputRequest", "terminal/wait_for_exit": "WaitForTerminalExitRequest",
	"terminal/kill": "KillTerminalRequest", "terminal/release": "ReleaseTerminalRequest",
	"elicitation/create": "CreateElicitationRequest",
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *rpcError        `json:"error"`
}

// editor is a fake ACP client: it serves a bridge in this process over
// pipes (startEditor), or spawns the binary over real pipes or sockets
// (startBinary, startEditorOf: the tests of the process itself — stdio
// framing, start-up, kill -9, the supervisor and the editor's terminal,
// very large messages), validates every message the bridge writes, and
// answers the bridge's requests through hooks (nil hooks answer with
// defaults).
type editor struct {
	t       testing.TB
	cmd     *exec.Cmd // nil for a bridge served in this process
	stdin   io.WriteCloser
	stderr  syncBuffer
	mu      sync.Mutex
	nextID  int
	waiting map[string]chan message
	methods map[string]string // request id → method
	updates []json.RawMessage // session/update params, in order
	asked   []json.RawMessage // session/request_permission params
	raw     []string          // every line received
	done    chan struct{}     // closed when stdout ends
	exited  chan struct{}     // closed when the process has been waited for
	waitErr error             // how the process ended; set before exited closes
	// closing is set by closeInput before it closes stdin; from then on
	// the editor sends nothing (see sendRaw).
	closing atomic.Bool

	// Hooks for the bridge's requests.
	onPermission func(params json.RawMessage) any // result
	onRead       func(path string) (string, *rpcError)
	onWrite      func(path, content string) *rpcError
	// onElicit answers elicitation/create (nil: a violation, the client
	// advertised no elicitation); elicited records their params.
	onElicit func(params json.RawMessage) (any, *rpcError)
	elicited []json.RawMessage
	// nextSession is a session a hook may name (set by the test).
	nextSession string

	terms     map[string]*fakeTerminal
	termCalls []string // terminal method calls, in order
	stamps    []stamp  // arrival times of tool call updates
	// mute makes the editor stop answering terminal requests.
	mute bool
	// silent lists terminal methods the editor never answers.
	silent map[string]bool
	// noValidate skips schema validation (benchmarks: the client must not
	// be the bottleneck it measures).
	noValidate bool
}

// stamp is when a tool_call, or an in_progress or completed update of a
// call, arrived.
type stamp struct {
	kind string // "tool_call", "in_progress" or "completed"
	id   string
	at   time.Time
}

// syncBuffer is a bytes.Buffer safe for a writer and readers at once.
type syncBuffer = bridge.SyncBuffer

// fakeTerminal is an editor terminal: the command runs for real.
type fakeTerminal struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
	code int
	sig  string
}

// startEditor starts a fake editor and a bridge: served in this process
// over pipes, or, when env sets what only the binary honours (or
// DSH_BENCH_BRIDGE names another build), the binary under test.
func startEditor(t testing.TB, env ...string) *editor {
	t.Helper()
	if os.Getenv("DSH_BENCH_BRIDGE") == "" {
		if e, ok := startInProcess(t, env); ok {
			return e
		}
	}
	return startEditorOf(t, binary, env...)
}

// startBinary is startEditor with the binary under test, always.
func startBinary(t testing.TB, env ...string) *editor {
	t.Helper()
	return startEditorOf(t, binary, env...)
}

// startEditorOf is startEditor with another dsh-bridge binary (a
// benchmark's peer build).
func startEditorOf(t testing.TB, bin string, env ...string) *editor {
	t.Helper()
	return startEditorStdio(t, bin, nil, env...)
}

// startEditorStdio is startEditorOf with the stdio that stdio gives (nil:
// pipes).
func startEditorStdio(t testing.TB, bin string, stdio func(testing.TB, *exec.Cmd) (io.WriteCloser, io.Reader), env ...string) *editor {
	t.Helper()
	touchOnce.Do(touchSources) // inside a test, where the test cache records it
	binaryCount.Add(1)
	e := &editor{t: t, waiting: map[string]chan message{}, methods: map[string]string{}, done: make(chan struct{})}
	e.cmd = exec.Command(bin)
	e.cmd.Env = append(os.Environ(), "DSH_API_KEY=test-key", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=", "DSH_MODEL=", "DSH_LOG_LEVEL=debug", "DSH_STATE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "DSH_KEYCHAIN=off")
	e.cmd.Env = append(e.cmd.Env, env...) // later entries win
	e.cmd.Stderr = &e.stderr
	var stdout io.Reader
	var err error
	if stdio != nil {
		e.stdin, stdout = stdio(t, e.cmd)
	} else {
		if e.stdin, err = e.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if stdout, err = e.cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if stdio != nil {
		// The bridge's ends: its output ends when it exits.
		e.cmd.Stdout.(*os.File).Close()
		e.cmd.Stdin.(*os.File).Close()
	}
	go e.read(stdout)
	e.exited = make(chan struct{})
	// Wait only after the reader has drained stdout (os/exec requires it).
	go func() { <-e.done; e.waitErr = e.cmd.Wait(); close(e.exited) }()
	t.Cleanup(e.close)
	return e
}

// close closes the bridge's stdin (closeInput), waits for the bridge to
// exit (killing it after 10 s) and for its output to be read. It may be
// called more than once.
func (e *editor) close() {
	e.closeInput()
	select {
	case <-e.exited:
	case <-time.After(10 * time.Second):
		if e.cmd == nil {
			e.t.Fatalf("the in-process bridge did not end after its input closed")
		}
		e.cmd.Process.Kill()
		<-e.exited
		e.t.Errorf("the bridge did not exit after stdin closed")
	}
	<-e.done
	if e.t.Failed() {
		e.t.Logf("bridge stderr:\n%s", e.stderr.String())
	}
}

// closeInput closes the editor's end of the bridge's stdin, as an editor
// that goes away does. From the call on, the editor sends nothing: what
// its reader, its terminal goroutines or the test would still send (a
// reply finished late, a notification) is dropped, not written, so no
// write ever meets the closed pipe. It may be called more than once.
func (e *editor) closeInput() {
	e.closing.Store(true)
	e.stdin.Close()
}

func (e *editor) violation(format string, args ...any) {
	e.t.Errorf("protocol violation: "+format, args...)
}

func (e *editor) read(r io.Reader) {
	defer close(e.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		// Arrival: stamped before this client decodes the line, so that
		// latencies measure the bridge, not encoding/json here.
		arrived := time.Now()
		line := append([]byte(nil), sc.Bytes()...)
		e.mu.Lock()
		e.raw = append(e.raw, string(line))
		e.mu.Unlock()
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			e.violation("stdout line is not JSON: %q", line)
			continue
		}
		switch {
		case m.Method != "" && m.ID != nil:
			e.answer(m)
		case m.Method != "":
			if m.Method != "session/update" {
				e.violation("unexpected notification %s", m.Method)
			} else if e.noValidate {
			} else if err := validateUpdate(m.Params); err != nil {
				e.violation("session/update %s: %v", m.Params, err)
			}
			now := arrived
			var n struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					ToolCallID    string `json:"toolCallId"`
					Status        string `json:"status"`
				} `json:"update"`
			}
			json.Unmarshal(m.Params, &n)
			e.mu.Lock()
			e.updates = append(e.updates, m.Params)
			switch u := n.Update; {
			case u.SessionUpdate == "tool_call":
				e.stamps = append(e.stamps, stamp{"tool_call", u.ToolCallID, now})
			case u.Status == "in_progress" || u.Status == "completed":
				e.stamps = append(e.stamps, stamp{u.Status, u.ToolCallID, now})
			}
			e.mu.Unlock()
		default:
			if m.ID == nil {
				if m.Error == nil || (m.Error.Code != -32700 && m.Error.Code != -32600) {
					e.violation("response without id: %s", line)
				}
				continue // a null-id error answers an unreadable message
			}
			key := string(*m.ID)
			e.mu.Lock()
			ch, method := e.waiting[key], e.methods[key]
			delete(e.waiting, key)
			e.mu.Unlock()
			if m.Error != nil && m.Error.Code == 0 {
				e.violation("error code 0: %s", line)
			}
			if def := resultType[method]; def != "" && m.Error == nil && !e.noValidate {
				if err := validate(def, m.Result); err != nil {
					e.violation("%s result %s: %v", method, m.Result, err)
				}
			}
			if ch != nil {
				ch <- m
			} else if key != "null" {
				e.violation("response to an unknown request %s", key)
			}
		}
	}
}

// answer serves one request from the bridge.
func (e *editor) answer(m message) {
	if def := requestType[m.Method]; def == "" {
		e.violation("the bridge called %s, which the client did not advertise or ACP does not define", m.Method)
	} else if err := validate(def, m.Params); err != nil {
		e.violation("%s params %s: %v", m.Method, m.Params, err)
	}
	var result any = map[string]any{}
	var rerr *rpcError
	var p struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "session/request_permission":
		e.mu.Lock()
		e.asked = append(e.asked, m.Params)
		e.mu.Unlock()
		result = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}
		if e.onPermission != nil {
			result = e.onPermission(m.Params)
		}
	case "fs/read_text_file":
		content := ""
		if e.onRead != nil {
			content, rerr = e.onRead(p.Path)
		} else if b, err := os.ReadFile(p.Path); err == nil {
			content = string(b)
		} else {
			rerr = &rpcError{Code: -32002, Message: "file not found"}
		}
		result = map[string]any{"content": content}
	case "terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release":
		// Answered on its own goroutine: wait_for_exit blocks.
		e.mu.Lock()
		silent := e.silent[m.Method]
		e.mu.Unlock()
		if silent {
			return
		}
		go func() {
			res := e.terminal(m)
			e.mu.Lock()
			mute := e.mute
			e.mu.Unlock()
			if !mute {
				e.reply(m, res)
			}
		}()
		return
	case "elicitation/create":
		e.mu.Lock()
		e.elicited = append(e.elicited, m.Params)
		e.mu.Unlock()
		if e.onElicit == nil {
			e.violation("elicitation/create from a client that advertised no elicitation")
			rerr = &rpcError{Code: -32601, Message: "method not found"}
		} else {
			result, rerr = e.onElicit(m.Params)
		}
	case "fs/write_text_file":
		if e.onWrite != nil {
			rerr = e.onWrite(p.Path, p.Content)
		} else if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
			rerr = &rpcError{Code: -32603, Message: err.Error()}
		}
	}
	e.replyWith(m, result, rerr)
}

func (e *editor) replyWith(m message, result any, rerr *rpcError) {
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if rerr != nil {
		resp["error"] = rerr
	} else {
		resp["result"] = result
	}
	e.send(resp)
}

func (e *editor) reply(m message, result any) { e.replyWith(m, result, nil) }

// onTerminalMute stops answering terminal requests.
func (e *editor) onTerminalMute() {
	e.mu.Lock()
	e.mute = true
	e.mu.Unlock()
}

// terminal serves the terminal/* methods with real processes.
func (e *editor) terminal(m message) any {
	var p struct {
		TerminalID string   `json:"terminalId"`
		Command    string   `json:"command"`
		Args       []string `json:"args"`
		Cwd        string   `json:"cwd"`
	}
	json.Unmarshal(m.Params, &p)
	e.mu.Lock()
	e.termCalls = append(e.termCalls, m.Method)
	if e.terms == nil {
		e.terms = map[string]*fakeTerminal{}
	}
	term := e.terms[p.TerminalID]
	e.mu.Unlock()
	switch m.Method {
	case "terminal/create":
		ft := &fakeTerminal{cmd: exec.Command(p.Command, p.Args...), done: make(chan struct{})}
		ft.cmd.Dir = p.Cwd
		ft.cmd.Stdout, ft.cmd.Stderr = &ft.out, &ft.out
		id := fmt.Sprintf("term-%d", time.Now().UnixNano())
		if err := ft.cmd.Start(); err != nil {
			close(ft.done)
		} else {
			go func() {
				err := ft.cmd.Wait()
				if ee, ok := err.(*exec.ExitError); ok {
					ft.code = ee.ExitCode()
					if ee.ExitCode() < 0 {
						ft.sig = "SIGKILL"
					}
				}
				close(ft.done)
			}()
		}
		e.mu.Lock()
		e.terms[id] = ft
		e.mu.Unlock()
		return map[string]any{"terminalId": id}
	case "terminal/wait_for_exit":
		<-term.done
		if term.sig != "" {
			return map[string]any{"exitCode": nil, "signal": term.sig}
		}
		return map[string]any{"exitCode": term.code, "signal": nil}
	case "terminal/output":
		return map[string]any{"output": term.out.String(), "truncated": false}
	case "terminal/kill":
		if term.cmd.Process != nil {
			term.cmd.Process.Kill()
		}
	}
	return map[string]any{}
}

func (e *editor) send(v any) {
	b, _ := json.Marshal(v)
	e.sendRaw(string(b))
}

// sendRaw writes one line to the bridge. After closeInput it writes
// nothing; a write that fails while the editor is open fails the test.
func (e *editor) sendRaw(line string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing.Load() {
		return
	}
	// A write under way when closeInput runs fails (the file closed under
	// it, or the bridge gone at the end of its input): that is a write
	// after close too.
	if _, err := io.WriteString(e.stdin, line+"\n"); err != nil && !e.closing.Load() {
		how := "still running"
		select {
		case <-e.exited:
			how = fmt.Sprintf("ended: %v", e.waitErr) // a signal or an exit code: the stderr may be empty
		default:
		}
		e.t.Errorf("write to the bridge: %v (the bridge %s)", err, how)
	}
}

// call sends a request and waits for its response.
func (e *editor) call(method string, params any) (json.RawMessage, *rpcError) {
	e.t.Helper()
	ch := e.start(method, params)
	select {
	case m := <-ch:
		return m.Result, m.Error
	case <-time.After(60 * time.Second):
		e.t.Fatalf("no answer to %s", method)
		return nil, nil
	}
}

// start sends a request and returns the channel its response arrives on.
func (e *editor) start(method string, params any) chan message {
	e.mu.Lock()
	e.nextID++
	id := e.nextID
	ch := make(chan message, 1)
	e.waiting[fmt.Sprint(id)] = ch
	e.methods[fmt.Sprint(id)] = method
	e.mu.Unlock()
	e.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (e *editor) notify(method string, params any) {
	e.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// initialize and newSession set up a session; caps are the client's.
// cardCaps are the capabilities of a client that draws _meta.dsh cards
// (dsh-bridge's own extensions).
func cardCaps() map[string]any {
	return map[string]any{"_meta": map[string]any{"dsh": map[string]any{"version": 1}}}
}

// packedCaps are the capabilities of a client that draws cards and asks
// for packed syntax tokens, as dsh-bridge's extensions do.
func packedCaps() map[string]any {
	return map[string]any{"_meta": map[string]any{"dsh": map[string]any{"version": 1, "packedTokens": true}}}
}

func (e *editor) initialize(caps map[string]any) {
	e.t.Helper()
	if _, err := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}); err != nil {
		e.t.Fatalf("initialize: %+v", err)
	}
}

func (e *editor) newSession(cwd string) string {
	e.t.Helper()
	res, err := e.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	if err != nil {
		e.t.Fatalf("session/new: %+v", err)
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(res, &r)
	return r.SessionID
}

func (e *editor) prompt(session, text string) string {
	e.t.Helper()
	res, err := e.call("session/prompt", map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		e.t.Fatalf("session/prompt: %+v", err)
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	json.Unmarshal(res, &r)
	return r.StopReason
}

// update is one session/update, decoded loosely.
type update struct {
	SessionUpdate string          `json:"sessionUpdate"`
	ToolCallID    string          `json:"toolCallId"`
	Status        string          `json:"status"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	Content       json.RawMessage `json:"content"`
	Raw           json.RawMessage `json:"-"`
	SessionID     string          `json:"-"` // the notification's
}

func (e *editor) decodedUpdates() []update {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]update, 0, len(e.updates))
	for _, p := range e.updates {
		var n struct {
			SessionID string          `json:"sessionId"`
			Update    json.RawMessage `json:"update"`
		}
		json.Unmarshal(p, &n)
		var u update
		json.Unmarshal(n.Update, &u)
		u.Raw, u.SessionID = n.Update, n.SessionID
		out = append(out, u)
	}
	return out
}

// toolUpdates returns the tool_call and tool_call_update updates of a call.
func (e *editor) toolUpdates(id string) []update {
	var out []update
	for _, u := range e.decodedUpdates() {
		if u.ToolCallID == id {
			out = append(out, u)
		}
	}
	return out
}

// agentText joins the agent_message_chunk texts.
func (e *editor) agentText() string {
	var b strings.Builder
	for _, u := range e.decodedUpdates() {
		if u.SessionUpdate == "agent_message_chunk" {
			var c struct{ Text string }
			json.Unmarshal(u.Content, &c)
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// waitFor polls cond for up to 10 s and fails the test if it never holds.
func (e *editor) waitFor(cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatal("timed out waiting for a condition")
		}
	}
}

// waitForNotice waits for a session notice whose update holds every one
// of texts. A session's notices follow its session/new answer, written
// by that request's handler, which on a busy machine may run after a
// whole turn the next prompt started.
func (e *editor) waitForNotice(texts ...string) {
	e.t.Helper()
	e.waitFor(func() bool {
		for _, u := range e.decodedUpdates() {
			if u.SessionUpdate != "notice" {
				continue
			}
			all := true
			for _, s := range texts {
				all = all && strings.Contains(string(u.Raw), s)
			}
			if all {
				return true
			}
		}
		return false
	})
}

// terminalCalls counts the terminal/* requests the bridge made.
func (e *editor) terminalCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.termCalls)
}

func (e *editor) permissionCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.asked)
}
