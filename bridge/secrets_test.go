//go:build linux

package bridge_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// secretKey is the API key the secrets tests give the bridge (and the
// fake model accepts): long enough to be redacted.
const secretKey = "sk-secret-4f1d2c9a7b3e"

// secretScrubbed is the value of a variable the user's settings scrub.
const secretScrubbed = "tok-scrubbed-8c2e41d0"

// openSecret starts the bridge with secretKey, secretScrubbed in
// SCRUBBED_TOKEN (scrubbed by the user's settings) and state in its own
// folder, opens a session in a new workspace in bypassPermissions, and
// lets turns(bridgePID) script the model.
func openSecret(t *testing.T, caps map[string]any, turns func(pid int) []fakeTurn) (h *harness, state string) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state, config := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(config, "dsh-bridge"), 0o755)
	os.WriteFile(filepath.Join(config, "dsh-bridge", "settings.json"), []byte(`{"scrubEnv":["SCRUBBED_TOKEN"]}`), 0o644)
	m := newFakeModel(t)
	m.mu.Lock()
	m.key = secretKey
	m.mu.Unlock()
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_API_KEY="+secretKey, "SCRUBBED_TOKEN="+secretScrubbed,
		"DSH_STATE_DIR="+state, "XDG_CONFIG_HOME="+config, "DSH_TOOLS_MODE=both")
	m.mu.Lock()
	m.turns = turns(e.cmd.Process.Pid)
	m.mu.Unlock()
	if caps == nil {
		caps = map[string]any{}
	}
	e.initialize(caps)
	h = &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	return h, state
}

// noSecretAnywhere fails t when a secret is in a tool result the model
// received (its own calls may name what it wrote), in what the editor
// was sent, or in the session logs under state.
func noSecretAnywhere(t *testing.T, h *harness, state string) {
	t.Helper()
	for _, s := range []string{secretKey, secretScrubbed} {
		for i, req := range h.model.recorded() {
			for _, m := range req.Messages {
				if m.Role == "tool" && strings.Contains(fmt.Sprint(m.Content), s) {
					t.Errorf("request %d to the model holds %s in a tool result", i, s)
				}
			}
		}
		if strings.Contains(h.stderr.String(), s) {
			t.Errorf("the bridge's log holds %s", s)
		}
		h.mu.Lock()
		for _, line := range h.raw {
			if strings.Contains(line, s) {
				t.Errorf("the editor was sent %s: %.300s", s, line)
			}
		}
		h.mu.Unlock()
		filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), s) {
					t.Errorf("the session log %s holds %s", p, s)
				}
			}
			return nil
		})
	}
}

// TestBridge_SecretsStaySecret: the API key and the scrubbed values
// cannot be read from the bridge's /proc entries by the file tools in any
// mode, nor by a sandboxed command, and never reach the model, the log or
// the editor even when a file holds them.
func TestBridge_SecretsStaySecret(t *testing.T) {
	t.Run("the file tools refuse a process's environment, command line and memory", func(t *testing.T) {
		paths := func(pid int) []string {
			p := strconv.Itoa(pid)
			return []string{"/proc/self/environ", "/proc/" + p + "/environ", "/proc/thread-self/environ", "/proc/" + p + "/cmdline",
				"/proc/" + p + "/task/" + p + "/environ", "/proc/self/root/proc/self/environ", "/proc/self/mem", "/proc/" + strconv.Itoa(os.Getpid()) + "/environ",
				"/proc/kcore"}
		}
		var want []string
		h, state := openSecret(t, nil, func(pid int) []fakeTurn {
			want = paths(pid)
			var calls []fakeCall
			for i, p := range want {
				calls = append(calls, fakeCall{fmt.Sprint("r", i), "read", args("file_path", p)})
			}
			calls = append(calls, fakeCall{"g", "grep", args("pattern", "API_KEY", "path", "/proc/self/environ")})
			return []fakeTurn{{calls: calls}, {text: "ok"}}
		})
		h.prompt(h.session, "x")
		got := h.toolMessages(1)
		for i, p := range want {
			if m := got[fmt.Sprint("r", i)]; !strings.Contains(m, "cannot be read") {
				t.Errorf("read %s: got %q, want a refusal", p, m)
			}
		}
		if m := got["g"]; strings.Contains(m, "API_KEY") {
			t.Errorf("grep in /proc/self/environ: %q", m)
		}
		noSecretAnywhere(t, h, state)
	})
	t.Run("a sandboxed command finds no secret in the bridge's /proc entries", func(t *testing.T) {
		h, state := openSecret(t, nil, func(pid int) []fakeTurn {
			p := strconv.Itoa(pid)
			script := "tr '\\0' '\\n' < /proc/" + p + "/environ; tr '\\0' ' ' < /proc/" + p + "/cmdline; echo; env; echo done"
			return []fakeTurn{bashTurn("b", script), {text: "ok"}}
		})
		h.prompt(h.session, "x")
		got := h.toolMessages(1)["b"]
		if !strings.Contains(got, "done") {
			t.Fatalf("the command did not run: %q", got)
		}
		if strings.Contains(got, "DSH_API_KEY") || strings.Contains(got, "SCRUBBED_TOKEN") || strings.Contains(got, "[redacted]") {
			t.Errorf("the command saw a secret's variable: %q", got)
		}
		noSecretAnywhere(t, h, state)
	})
	t.Run("a file that holds the key is redacted on its way out", func(t *testing.T) {
		h, state := openSecret(t, map[string]any{"_meta": map[string]any{"dsh": map[string]any{"version": 1}}}, func(int) []fakeTurn {
			return []fakeTurn{{calls: []fakeCall{
				{"r", "read", args("file_path", "leak.env")},
				{"b", "bash", args("command", "cat leak.env; printf %s "+secretScrubbed, "description", "d")},
			}}, {text: "ok"}}
		})
		h.file("leak.env", "DSH_API_KEY="+secretKey+"\nTOKEN="+secretScrubbed+"\n")
		h.prompt(h.session, "x")
		got := h.toolMessages(1)
		for _, id := range []string{"r", "b"} {
			if !strings.Contains(got[id], "[redacted]") {
				t.Errorf("%s: got %q, want the values redacted", id, got[id])
			}
		}
		noSecretAnywhere(t, h, state)
		if b, _ := os.ReadFile(filepath.Join(h.dir, "leak.env")); !strings.Contains(string(b), secretKey) {
			t.Errorf("the file itself was changed: %q", b)
		}
	})
	t.Run("a program reaches no secret to turn into another spelling", func(t *testing.T) {
		code := `const r = await tools.read({file_path: "leak.env"}); return JSON.stringify(r).split("").reverse().join("");`
		h, state := openSecret(t, nil, func(int) []fakeTurn {
			return []fakeTurn{{calls: []fakeCall{{"p", "run_code", args("code", code, "description", "d")}}}, {text: "ok"}}
		})
		h.file("leak.env", "DSH_API_KEY="+secretKey+"\n")
		h.prompt(h.session, "x")
		got := h.toolMessages(1)["p"]
		if !strings.Contains(got, "]detcader[") {
			t.Errorf("the program did not return the reversed, redacted file: %q", got)
		}
		if strings.Contains(got, reverse(secretKey)) {
			t.Errorf("the program turned the key into another spelling: %q", got)
		}
		noSecretAnywhere(t, h, state)
	})
}

// TestBridge_EditorTerminalIsSandboxed: a client that runs commands in
// its own terminals gets them confined as local ones are, and without the
// API keys of the editor's own environment.
func TestBridge_EditorTerminalIsSandboxed(t *testing.T) {
	t.Setenv("DEEPSEEK_API_KEY", "sk-in-the-editors-environment") // the editor's; the terminal inherits it
	outside := t.TempDir()
	script := "echo escaped > " + outside + "/marker; echo in > inside.txt; echo \"key=$DEEPSEEK_API_KEY\"; echo done"
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t, bashTurn("b", script), fakeTurn{text: "ok"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "TMPDIR="+t.TempDir()) // the sandbox's temp folder is not outside's
	e.initialize(map[string]any{"terminal": true})
	h := &harness{editor: e, model: m, dir: dir, session: e.newSession(dir)}
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	h.prompt(h.session, "x")
	got := h.toolMessages(1)["b"]
	if h.terminalCalls() == 0 {
		t.Fatalf("the command did not run in the editor's terminal: %q", got)
	}
	if !strings.Contains(got, "done") {
		t.Fatalf("the command did not run: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "marker")); err == nil {
		t.Error("the command in the editor's terminal wrote outside the workspace")
	}
	if h.content("inside.txt") != "in\n" {
		t.Errorf("the command could not write in the workspace: %q", got)
	}
	if strings.Contains(got, "sk-in-the-editors-environment") || !strings.Contains(got, "key=\n") {
		t.Errorf("the command saw the editor's API key: %q", got)
	}
	h.waitForNotice("Commands run in a sandbox, in the editor's terminal")
}

// TestBridge_MemoryIsNotOthers: no other process of the bridge's user (an
// MCP server, an approved unsandboxed command) may open the bridge's
// memory or environment. As root the test runs the bridge and the probe
// as another user, since root may read any process.
func TestBridge_MemoryIsNotOthers(t *testing.T) {
	touchOnce.Do(touchSources)
	var cred *syscall.Credential
	dir := t.TempDir()
	bin := binary
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		dir, _ = os.MkdirTemp("", "dsh-nobody-")
		t.Cleanup(func() { os.RemoveAll(dir) })
		os.Chmod(dir, 0o777)
		data, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "dsh-bridge")
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The bridge works as before for that user: a sandboxed command and a
	// read (the sandbox's helper and supervisor, and the file tools, use
	// the bridge's own /proc/self entries).
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o777)
	os.Chmod(ws, 0o777) // past the umask: the bridge may run as another user
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o666)
	script := filepath.Join(dir, "turns.jsonl")
	os.WriteFile(script, []byte(`{"tool_calls":[{"id":"b","name":"bash","arguments":{"command":"echo beta > b.txt","description":"d"}},{"id":"r","name":"read","arguments":{"file_path":"a.txt"}}]}`+"\n"+
		`{"expect":[{"id":"b","error":false},{"id":"r","contains":"alpha"}],"text":"done"}`+"\n"), 0o644)
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "DSH_API_KEY=" + secretKey, "DSH_STATE_DIR=" + dir, "XDG_CONFIG_HOME=" + dir, "DSH_MODEL=script:" + script}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	r := bufio.NewReader(out)
	answer := func(id int, request string) string { // the answer to request id, the lines before it
		t.Helper()
		io.WriteString(in, request+"\n")
		var seen strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("no answer to %s: %v\n%s", request, err, seen.String())
			}
			seen.WriteString(line)
			if strings.HasPrefix(line, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id)) {
				return seen.String()
			}
		}
	}
	answer(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	got := answer(2, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+ws+`","mcpServers":[]}}`)
	sid := strings.SplitN(strings.SplitN(got[strings.LastIndex(got, `"sessionId":"`)+len(`"sessionId":"`):], `"`, 2)[0], `"`, 2)[0]
	answer(3, `{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"`+sid+`","modeId":"bypassPermissions"}}`)
	got = answer(4, `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"x"}]}}`)
	if !strings.Contains(got, "done") || strings.Contains(got, "model error") {
		t.Errorf("the session did not work for that user:\n%s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "beta\n" {
		t.Errorf("the command did not run: b.txt is %q\n%s", b, got)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	for _, f := range []string{"mem", "environ"} {
		probe := exec.Command("sh", "-c", "exec 3</proc/"+pid+"/"+f+" && echo opened")
		probe.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		got, err := probe.CombinedOutput()
		if err == nil || strings.Contains(string(got), "opened") {
			t.Errorf("a process of the bridge's user opened /proc/%s/%s: %s", pid, f, got)
		}
	}
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
