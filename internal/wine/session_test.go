//go:build linux

package wine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// winPath is the Windows form of a Linux path under Wine, which maps / to
// Z:.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// TestWineSession drives one ACP session of the Windows dsh-bridge.exe
// under Wine with a scripted model (the package doc says what it proves
// and what it does not): initialize; session/new on Z:\…; a read; an
// edit of a CRLF file, checked on disk from Linux; a grep, through the
// native walker (no rg.exe on the bridge's PATH yet); a read of
// Z:\etc\passwd, which asks and, refused, fails; a command whose child
// would outlive it, ended by the command's Job Object; then, once a real
// Windows ripgrep (DSH_WINE_RG, put there by ripgrep.sh) is in a folder
// of the bridge's PATH, a grep through it, found as "rg" with
// %PATHEXT%; and a command still running when the bridge is killed,
// whose process ends with the bridge.
//
// Which engine answered a grep shows in one file: src/rgonly.txt, named
// in the workspace's .rgignore, which ripgrep reads and the native
// walker does not (it reads .gitignore and .ignore): the first grep
// finds it, the second must not.
func TestWineSession(t *testing.T) {
	prefix := os.Getenv("DSH_WINE_PREFIX")
	if prefix == "" {
		t.Skip("make test-wine runs this (DSH_WINE_PREFIX names its Wine prefix)")
	}
	wine, err := exec.LookPath("wine")
	if err != nil {
		t.Fatal("wine is not installed (make deps-wine installs it)")
	}
	if _, err := os.Stat(filepath.Join(prefix, "drive_c/windows/system32/bcryptprimitives.dll")); err != nil {
		t.Fatalf("the prefix %s lacks its bcryptprimitives.dll (internal/wine/prefix.sh makes it): %v", prefix, err)
	}
	rg := os.Getenv("DSH_WINE_RG")
	if _, err := os.Stat(rg); rg == "" || err != nil {
		t.Fatalf("DSH_WINE_RG names no Windows ripgrep (%q; internal/wine/ripgrep.sh puts one): %v", rg, err)
	}
	dir := t.TempDir()
	bin := buildWindows(t, dir)
	outlive := filepath.Join(bin, "outlive.exe")
	// rgbin is on the bridge's PATH (WINEPATH) from the start, empty until
	// the second prompt.
	rgbin := filepath.Join(dir, "rgbin")
	if err := os.Mkdir(rgbin, 0o755); err != nil {
		t.Fatal(err)
	}

	// Without a Job Object, outlive's child outlives it: what the
	// bridge's command must not let happen.
	t.Run("control", func(t *testing.T) {
		marker, ready := "dsh-wine-control-"+strconv.Itoa(os.Getpid()), filepath.Join(dir, "control-ready")
		cmd := exec.Command(wine, outlive, "spawn", marker, winPath(ready))
		cmd.Env = wineEnv(prefix) // no output pipes: the child would hold them open
		if err := cmd.Run(); err != nil {
			t.Fatalf("outlive spawn: %v", err)
		}
		pids := processesOf(marker)
		t.Cleanup(func() { killAll(marker) })
		if len(pids) == 0 {
			t.Fatal("outlive's child is gone once outlive has exited: the control proves nothing")
		}
	})

	ws := filepath.Join(dir, "ws")
	files := map[string]string{
		"notes.txt":      "hello from Linux\n",
		"crlf.txt":       "hello world\r\nsecond line\r\n",
		"src/find.txt":   "one\nthe needle is here\nthree\n",
		"src/rgonly.txt": "a needle only the native walker shows\n",
		".rgignore":      "rgonly.txt\n",
	}
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marker := "dsh-wine-job-" + strconv.Itoa(os.Getpid())
	ready := filepath.Join(dir, "job-ready")
	t.Cleanup(func() { killAll(marker) })
	spawn := winPath(outlive) + " spawn " + marker + " " + winPath(ready)
	script := []string{
		call("read_1", "read", map[string]any{"file_path": "notes.txt"}, nil),
		call("edit_1", "edit", map[string]any{"file_path": "crlf.txt", "old_string": "world", "new_string": "Wine"},
			[]any{expect("read_1", "1: hello from Linux", false)}),
		call("grep_1", "grep", map[string]any{"pattern": "needle"},
			[]any{expect("edit_1", "has been updated successfully", false)}),
		call("out_1", "read", map[string]any{"file_path": `Z:\etc\passwd`},
			[]any{expect("grep_1", "find.txt", false), expect("grep_1", "the needle is here", false)}),
		call("bash_1", "bash", map[string]any{"command": spawn, "description": "Leave a child behind"},
			[]any{expect("out_1", "", true)}),
		mustJSON(map[string]any{"expect": []any{expect("bash_1", "", false)}, "text": "All done."}),
		// The second prompt: a grep through rg.exe, then a command still
		// running when the bridge is killed.
		call("grep_2", "grep", map[string]any{"pattern": "needle"}, nil),
		call("bash_2", "bash", map[string]any{"command": winPath(outlive) + " sleep " + marker + "-kill " + winPath(ready+"-kill"),
			"description": "Run until stopped"}, []any{expect("grep_2", "find.txt", false), expect("grep_2", "the needle is here", false)}),
	}
	scriptPath := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(scriptPath, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	e := startBridge(t, wine, filepath.Join(bin, "dsh-bridge.exe"), prefix, dir, scriptPath,
		"WINEPATH="+winPath(rgbin))
	e.onPermission = func(title string) string {
		if strings.Contains(title, "passwd") {
			return "reject"
		}
		return "allow"
	}
	e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	e.decode(e.call("session/new", map[string]any{"cwd": winPath(ws), "mcpServers": []any{}}), &sess)
	var done struct {
		StopReason string `json:"stopReason"`
	}
	e.decode(e.call("session/prompt", map[string]any{"sessionId": sess.SessionID,
		"prompt": []any{map[string]any{"type": "text", "text": "Go."}}}), &done)

	if done.StopReason != "end_turn" {
		t.Errorf("stop reason %q, want end_turn", done.StopReason)
	}
	text := e.agentText()
	if strings.Contains(text, "[model error") || !strings.Contains(text, "All done.") {
		t.Errorf("the script's expectations failed; the agent said %q", text)
	}
	if !strings.Contains(e.notices(), "Job Object") {
		t.Errorf("no session notice names the Job Object; notices: %q", e.notices())
	}
	t.Run("edit keeps CRLF", func(t *testing.T) {
		got, err := os.ReadFile(filepath.Join(ws, "crlf.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "hello Wine\r\nsecond line\r\n"; string(got) != want {
			t.Errorf("crlf.txt is %q, want %q", got, want)
		}
	})
	t.Run("outside the workspace asks", func(t *testing.T) {
		asked := e.askedTitles()
		var outside []string
		for _, a := range asked {
			if strings.Contains(a, "passwd") {
				outside = append(outside, a)
			}
		}
		if len(outside) != 1 {
			t.Errorf("asks for the read of Z:\\etc\\passwd: %q (all asks: %q)", outside, asked)
		}
		if out := e.toolOutput("out_1"); strings.Contains(out, "root:") {
			t.Errorf("the refused read shows the file: %q", out)
		}
	})
	t.Run("job ends the command's child", func(t *testing.T) {
		if _, err := os.Stat(ready); err != nil {
			t.Fatalf("the command's child never ran: %v", err)
		}
		if pids := waitGone(marker); len(pids) > 0 {
			t.Errorf("the command's child outlived it: pids %v", pids)
		}
	})
	t.Run("the first grep walked the tree itself", func(t *testing.T) {
		out := e.toolOutput("grep_1")
		if !strings.Contains(out, "the needle is here") {
			t.Errorf("the native grep found nothing: %s", out)
		}
		if !strings.Contains(out, "rgonly.txt") {
			t.Errorf("the first grep skipped the file only .rgignore names: ripgrep ran before rg.exe was on the PATH: %s", out)
		}
	})
	// From here rg.exe is in a folder of the bridge's PATH.
	exe, err := os.ReadFile(rg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rgbin, "rg.exe"), exe, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("killing the bridge ends its command", func(t *testing.T) {
		e.send("session/prompt", map[string]any{"sessionId": sess.SessionID,
			"prompt": []any{map[string]any{"type": "text", "text": "Again."}}})
		if !waitFile(ready + "-kill") {
			t.Fatalf("the second command never started; stderr:\n%s", e.stderr.String())
		}
		if len(processesOf(marker+"-kill")) == 0 {
			t.Fatal("the second command is not running")
		}
		e.kill()
		if pids := waitGone(marker + "-kill"); len(pids) > 0 {
			t.Errorf("the command outlived the killed bridge: pids %v", pids)
		}
	})
	t.Run("the second grep ran rg.exe", func(t *testing.T) {
		out := e.toolOutput("grep_2")
		if !strings.Contains(out, "the needle is here") {
			t.Errorf("the grep through rg.exe found nothing: %s", out)
		}
		if strings.Contains(out, "rgonly.txt") {
			t.Errorf("the second grep shows the file .rgignore names: rg.exe did not run: %s", out)
		}
	})
	if v := e.violations(); len(v) > 0 {
		t.Errorf("protocol violations:\n%s", strings.Join(v, "\n"))
	}
}

// buildWindows builds the bridge, its helpers (which it looks for next to
// itself) and outlive for windows/amd64 into dir/bin, as shipped: static,
// without test.sh's overlay.
func buildWindows(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	for _, args := range [][]string{
		{"-o", bin + "/", "./cmd/dsh-bridge", "./cmd/dsh-highlight", "./cmd/dsh-code", "./cmd/dsh-markdown"},
		{"-o", filepath.Join(bin, "outlive.exe"), "./internal/wine/testdata/outlive"},
	} {
		cmd := exec.Command("go", append([]string{"build"}, args...)...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, out)
		}
	}
	return bin
}

func wineEnv(prefix string) []string {
	return append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
}

func call(id, tool string, args map[string]any, expects []any) string {
	turn := map[string]any{"tool_calls": []any{map[string]any{"id": id, "name": tool, "arguments": args}}}
	if expects != nil {
		turn["expect"] = expects
	}
	return mustJSON(turn)
}

func expect(id, contains string, isError bool) map[string]any {
	return map[string]any{"id": id, "contains": contains, "error": isError}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// processesOf lists the processes whose command line holds marker.
func processesOf(marker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline")); err == nil && bytes.Contains(b, []byte(marker)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits up to a minute for the processes of marker to end, and
// returns those that remain. Wine ends a job's processes through its
// wineserver, after the call that closes the job has returned.
func waitGone(marker string) []int {
	for range 600 {
		if len(processesOf(marker)) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return processesOf(marker)
}

// waitFile waits up to a minute for the file p.
func waitFile(p string) bool {
	for range 600 {
		if _, err := os.Stat(p); err == nil {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

func killAll(marker string) {
	for _, pid := range processesOf(marker) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// editor is a small ACP client for one bridge under Wine: it validates
// what the bridge writes against the ACP schema, answers permission
// requests through onPermission ("allow" or "reject", by the tool call's
// title) and records the session's updates.
type editor struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr lockedBuffer // written by exec's copier
	schema *jsonschema.Compiler
	// onPermission is read by the reading goroutine: set it before the
	// first prompt.
	onPermission func(title string) string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan json.RawMessage
	updates []json.RawMessage // session/update params' update
	asked   []string          // titles of the tool calls permission was asked for
	bad     []string          // protocol violations
	done    chan struct{}     // closed when stdout ends
}

func startBridge(t *testing.T, wine, exe, prefix, dir, script string, env ...string) *editor {
	cmd := exec.Command(wine, exe)
	cmd.Dir = dir
	cmd.Env = append(wineEnv(prefix), "DSH_MODEL=script:"+winPath(script),
		"DSH_STATE_DIR="+winPath(filepath.Join(dir, "state")), "XDG_CONFIG_HOME="+winPath(filepath.Join(dir, "config")),
		"XDG_STATE_HOME="+winPath(filepath.Join(dir, "state")), "DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=")
	cmd.Env = append(cmd.Env, env...)
	e := &editor{t: t, cmd: cmd, waiting: map[int]chan json.RawMessage{}, done: make(chan struct{})}
	cmd.Stderr = &e.stderr
	// Under Wine a process a command starts inherits the bridge's Unix
	// stderr, whatever the Windows handles say: Wait must not wait for it.
	cmd.WaitDelay = 10 * time.Second
	var err error
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../views/testdata/acp-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	e.schema = jsonschema.NewCompiler()
	if err := e.schema.AddResource("acp.json", doc); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go e.read(stdout)
	t.Cleanup(e.kill)
	return e
}

// kill kills the bridge (the wine process that is dsh-bridge.exe) and
// waits for it.
func (e *editor) kill() {
	if e.cmd.ProcessState == nil {
		e.cmd.Process.Kill()
		e.cmd.Wait()
	}
}

func (e *editor) validate(def string, raw []byte) {
	s, err := e.schema.Compile("acp.json#/$defs/" + def)
	if err == nil {
		var doc any
		if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err == nil {
			err = s.Validate(doc)
		}
	}
	if err != nil {
		e.violation("%s %s: %v", def, raw, err)
	}
}

func (e *editor) violation(format string, args ...any) {
	e.mu.Lock()
	e.bad = append(e.bad, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

func (e *editor) violations() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.bad...)
}

var resultType = map[string]string{"initialize": "InitializeResponse", "session/new": "NewSessionResponse", "session/prompt": "PromptResponse"}

func (e *editor) read(r io.Reader) {
	defer close(e.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			e.violation("stdout line is not JSON: %q", sc.Bytes())
			continue
		}
		switch {
		case m.Method == "session/update" && m.ID == nil:
			e.validate("SessionNotification", m.Params)
			var n struct {
				Update json.RawMessage `json:"update"`
			}
			json.Unmarshal(m.Params, &n)
			e.mu.Lock()
			e.updates = append(e.updates, n.Update)
			e.mu.Unlock()
		case m.Method == "session/request_permission" && m.ID != nil:
			e.validate("RequestPermissionRequest", m.Params)
			e.answerPermission(*m.ID, m.Params)
		case m.Method != "":
			e.violation("unexpected message %s from a bridge given no client capabilities", m.Method)
		case m.ID != nil:
			e.mu.Lock()
			ch := e.waiting[*m.ID]
			delete(e.waiting, *m.ID)
			e.mu.Unlock()
			if ch == nil {
				e.violation("answer to no request: %s", sc.Bytes())
				continue
			}
			if m.Error != nil {
				e.violation("error answer: %s", sc.Bytes())
			}
			ch <- m.Result
		default:
			e.violation("message without id or method: %s", sc.Bytes())
		}
	}
}

func (e *editor) answerPermission(id int, params json.RawMessage) {
	var p struct {
		ToolCall struct {
			Title string `json:"title"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	json.Unmarshal(params, &p)
	want := e.onPermission(p.ToolCall.Title) + "_once"
	e.mu.Lock()
	e.asked = append(e.asked, p.ToolCall.Title)
	e.mu.Unlock()
	choice := ""
	for _, o := range p.Options {
		if o.Kind == want {
			choice = o.OptionID
		}
	}
	if choice == "" {
		e.violation("permission request without a %s option: %s", want, params)
	}
	e.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":%q}}}`, id, choice))
}

func (e *editor) write(line string) {
	if _, err := io.WriteString(e.stdin, line+"\n"); err != nil {
		e.violation("writing to the bridge: %v", err)
	}
}

// send sends a request and returns the channel its result comes on.
func (e *editor) send(method string, params any) chan json.RawMessage {
	e.mu.Lock()
	e.nextID++
	id := e.nextID
	ch := make(chan json.RawMessage, 1)
	e.waiting[id] = ch
	e.mu.Unlock()
	e.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, mustJSON(params)))
	return ch
}

// call sends a request and waits up to two minutes for its result, which
// it validates.
func (e *editor) call(method string, params any) json.RawMessage {
	e.t.Helper()
	select {
	case r := <-e.send(method, params):
		if def := resultType[method]; def != "" {
			e.validate(def, r)
		}
		return r
	case <-e.done:
		e.kill()
		e.t.Fatalf("the bridge ended before answering %s; stderr:\n%s", method, e.stderr.String())
	case <-time.After(2 * time.Minute):
		e.kill()
		e.t.Fatalf("no answer to %s; stderr:\n%s", method, e.stderr.String())
	}
	return nil
}

func (e *editor) decode(raw json.RawMessage, v any) {
	e.t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		e.t.Fatalf("%s: %v", raw, err)
	}
}

type update struct {
	SessionUpdate string `json:"sessionUpdate"`
	ToolCallID    string `json:"toolCallId"`
	Title         string `json:"title"`
	Description   string `json:"description"`
	Content       any    `json:"content"`
}

func (e *editor) each(fn func(u update, raw json.RawMessage)) {
	e.mu.Lock()
	ups := append([]json.RawMessage(nil), e.updates...)
	e.mu.Unlock()
	for _, raw := range ups {
		var u update
		json.Unmarshal(raw, &u)
		fn(u, raw)
	}
}

// agentText is every agent_message_chunk's text, in order.
func (e *editor) agentText() string {
	var b strings.Builder
	e.each(func(u update, raw json.RawMessage) {
		var c struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if u.SessionUpdate == "agent_message_chunk" && json.Unmarshal(raw, &c) == nil {
			b.WriteString(c.Content.Text)
		}
	})
	return b.String()
}

// notices is every notice's title and description.
func (e *editor) notices() string {
	var b strings.Builder
	e.each(func(u update, _ json.RawMessage) {
		if u.SessionUpdate == "notice" {
			b.WriteString(u.Title + ": " + u.Description + "\n")
		}
	})
	return b.String()
}

// toolOutput is every update of the tool call id, as JSON.
func (e *editor) toolOutput(id string) string {
	var b strings.Builder
	e.each(func(u update, raw json.RawMessage) {
		if u.ToolCallID == id {
			b.Write(raw)
		}
	})
	return b.String()
}

func (e *editor) askedTitles() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.asked...)
}

// lockedBuffer is a bytes.Buffer safe for a writer and readers at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
