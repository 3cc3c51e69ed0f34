package bridge_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// TestBridge_OversizedEditorReply: an editor reply larger than the line
// limit fails its call at once (it used to hang the turn forever), and a
// large local file is read locally instead of through the editor.
func TestBridge_OversizedEditorReply(t *testing.T) {
	fsCaps := map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}
	t.Run("a reply over 64 MiB fails the read", func(t *testing.T) {
		h := setupWith(t, startBinary, fsCaps, fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", "a.txt")}}}, fakeTurn{text: "ok"})
		h.file("a.txt", "small on disk\n")
		h.onRead = func(string) (string, *rpcError) { return strings.Repeat("x", 65<<20), nil }
		done := make(chan string, 1)
		go func() { done <- h.prompt(h.session, "read") }()
		select {
		case stop := <-done:
			if stop != "end_turn" {
				t.Errorf("stop %q", stop)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the turn hangs on a reply the bridge dropped")
		}
		if got := h.toolMessages(1)["r"]; !strings.Contains(got, "larger than the limit") {
			t.Errorf("the model was told %q", got)
		}
	})
	t.Run("a large local file is read locally", func(t *testing.T) {
		h := setupWith(t, startBinary, fsCaps, fakeTurn{calls: []fakeCall{{"r", "read", args("file_path", "big.log", "limit", 3)}}}, fakeTurn{text: "ok"})
		h.file("big.log", strings.Repeat("a log line that goes on for a while\n", 300_000)) // 10.8 MB
		var asked atomic.Int32
		h.onRead = func(string) (string, *rpcError) { asked.Add(1); return "", &rpcError{Code: -32603, Message: "no"} }
		h.prompt(h.session, "read")
		if asked.Load() != 0 || !strings.Contains(h.toolMessages(1)["r"], "a log line") {
			t.Errorf("asked the editor %d times; result %.200q", asked.Load(), h.toolMessages(1)["r"])
		}
	})
}

// TestBridge_CancelWithSilentEditor: session/cancel ends the turn within a
// bounded time whatever the editor does with its terminal.
func TestBridge_CancelWithSilentEditor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		silent []string
	}{
		{"never answers wait_for_exit", []string{"terminal/wait_for_exit"}},
		{"never answers wait_for_exit, kill or release", []string{"terminal/wait_for_exit", "terminal/kill", "terminal/release", "terminal/output"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proctest.Sweep(t, "sleep\x007792")
			h := setup(t, map[string]any{"terminal": true}, fakeTurn{calls: []fakeCall{{"long", "bash", args("command", "sleep 7792", "description", "wait")}}})
			h.mu.Lock()
			h.silent = map[string]bool{}
			for _, m := range tc.silent {
				h.silent[m] = true
			}
			h.mu.Unlock()
			t.Cleanup(func() {
				h.mu.Lock()
				defer h.mu.Unlock()
				for _, ft := range h.terms {
					if ft.cmd.Process != nil {
						ft.cmd.Process.Kill()
					}
				}
			})
			ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
			h.waitFor(func() bool { return finalStatus(h.toolUpdates("long")) == "in_progress" && h.terminalCalls() > 0 })
			start := time.Now()
			h.notify("session/cancel", map[string]any{"sessionId": h.session})
			select {
			case m := <-ch:
				if !strings.Contains(string(m.Result), `"cancelled"`) {
					t.Errorf("prompt answered %s %+v", m.Result, m.Error)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("session/cancel did not end the turn")
			}
			if d := time.Since(start); d > 12*time.Second {
				t.Errorf("cancel took %v", d)
			}
			if st := finalStatus(h.toolUpdates("long")); st != "failed" {
				t.Errorf("the cancelled call ended %q", st)
			}
		})
	}
}

// TestBridge_PromptRightBehindLoad: a prompt sent before session/load has
// answered waits for the history and the log to be restored; its turn sees
// the whole history and is kept in the log.
func TestBridge_PromptRightBehindLoad(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	st, err := store.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	const id, turns = "sess_behind_load", 400
	log, err := st.Create(id, store.Event{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range turns {
		call := fmt.Sprintf("c%d", i)
		for _, e := range []store.Event{
			{Kind: store.KindUser, Text: fmt.Sprintf("question %d", i)},
			{Kind: store.KindAssistant, Text: "Looking.", Reasoning: "think", ToolCalls: []store.ToolCall{{ID: call, Name: "read", Arguments: `{"file_path":"a.txt"}`}}},
			{Kind: store.KindToolResult, CallID: call, Content: []card.Content{card.Text("1  hello")}},
			{Kind: store.KindAssistant, Text: fmt.Sprintf("answer %d", i)},
			{Kind: store.KindTurnEnd, StopReason: "end_turn"},
		} {
			if err := log.Append(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	log.Close()
	m := newFakeModel(t, fakeTurn{text: "fresh answer"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state)
	e.initialize(nil)
	loadCh := e.start("session/load", map[string]any{"sessionId": id, "cwd": dir, "mcpServers": []any{}})
	promptCh := e.start("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "behind the load"}}})
	for _, ch := range []chan message{loadCh, promptCh} {
		select {
		case m := <-ch:
			if m.Error != nil {
				t.Fatalf("error %+v", m.Error)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no answer")
		}
	}
	reqs := m.recorded()
	if len(reqs) != 1 || len(reqs[0].Messages) != 1+turns*4+1 {
		t.Fatalf("the prompt's request has %d messages, want %d", len(reqs[0].Messages), 1+turns*4+1)
	}
	e.close()
	data, _ := os.ReadFile(filepath.Join(state, id+".jsonl"))
	if !strings.Contains(string(data), `"text":"behind the load"`) || !strings.Contains(string(data), `"text":"fresh answer"`) {
		t.Error("the turn run behind the load is missing from the log")
	}
}

// TestBridge_WriteThroughSymlink: writing a symlinked file writes its
// target and keeps the link; an existing file keeps its mode; a new file
// follows the umask.
func TestBridge_WriteThroughSymlink(t *testing.T) {
	setUmask(t, 0o077)
	h := setup(t, nil,
		fakeTurn{calls: []fakeCall{
			{"w1", "write", args("file_path", "CLAUDE.md", "content", "# shared rules\n")},
			{"w2", "write", args("file_path", "new.txt", "content", "fresh\n")},
			{"e1", "edit", args("file_path", "script.sh", "old_string", "old", "new_string", "new")},
		}}, fakeTurn{text: "ok"})
	h.file("AGENTS.md", "# rules\n")
	os.Symlink("AGENTS.md", filepath.Join(h.dir, "CLAUDE.md"))
	h.file("script.sh", "echo old\n")
	os.Chmod(filepath.Join(h.dir, "script.sh"), 0o750)
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "acceptEdits"})
	h.prompt(h.session, "write")
	if fi, err := os.Lstat(filepath.Join(h.dir, "CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v %v", fi.Mode(), err)
	}
	if got := h.content("AGENTS.md"); got != "# shared rules\n" {
		t.Errorf("the link's target holds %q", got)
	}
	for name, want := range map[string]os.FileMode{"script.sh": 0o750, "new.txt": 0o600} {
		if fi, err := os.Stat(filepath.Join(h.dir, name)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", name, fi.Mode().Perm(), err, want)
		}
	}
	if h.content("script.sh") != "echo new\n" {
		t.Errorf("script.sh = %q", h.content("script.sh"))
	}
}

// TestBridge_SpillFiles: the spill file of a long command output is deleted
// when its session closes, and the spill folders of dead processes are
// swept when the next process opens a session.
func TestBridge_SpillFiles(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, fmt.Sprintf("dsh-bridge-spill-%d", os.Getuid()))
	dead := filepath.Join(root, "999999999.42")
	os.MkdirAll(dead, 0o700)
	os.WriteFile(filepath.Join(dead, "bash-output-1.txt"), []byte("left behind"), 0o600)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	m := newFakeModel(t, fakeTurn{calls: []fakeCall{{"b", "bash", args("command", "seq 1 200000", "description", "long output")}}}, fakeTurn{text: "ok"})
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "TMPDIR="+tmp)
	e.initialize(nil)
	s := e.newSession(dir)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead process's spill folder was not swept: %v", err)
	}
	e.prompt(s, "run it")
	spills, _ := filepath.Glob(filepath.Join(root, "*", "bash-output-*.txt"))
	if len(spills) != 1 {
		t.Fatalf("spill files %v", spills)
	}
	if got := m.recorded(); !strings.Contains(fmt.Sprint(got[len(got)-1].Messages), spills[0]) {
		t.Errorf("the model was not told where the output went")
	}
	if _, err := e.call("session/close", map[string]any{"sessionId": s}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spills[0]); !os.IsNotExist(err) {
		t.Errorf("the spill file outlived its session: %v", err)
	}
	e.close()
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("the process left its spill folder: %v", left)
	}
}

// TestBridge_KillNineLeavesNoProcess: when dsh-bridge is killed with
// SIGKILL (no chance to clean up), its foreground command, a background
// job and everything they started end too.
func TestBridge_KillNineLeavesNoProcess(t *testing.T) {
	proctest.Sweep(t, "sleep\x007794", "sleep\x007795", "sleep\x007796", "sleep\x007797")
	h := setupWith(t, startBinary, nil,
		fakeTurn{calls: []fakeCall{{"j", "bash", `{"command":"sh -c 'sleep 7794; echo' & setsid sleep 7797 & sleep 7795","description":"job","run_in_background":true}`}}},
		fakeTurn{calls: []fakeCall{{"f", "bash", args("command", "sleep 7796 | cat", "description", "foreground")}}})
	h.call("session/set_mode", map[string]any{"sessionId": h.session, "modeId": "bypassPermissions"})
	h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
	h.waitFor(func() bool { return finalStatus(h.toolUpdates("f")) == "in_progress" })
	h.waitFor(func() bool {
		return running("sleep\x007794") && running("sleep\x007795") && running("sleep\x007796") && running("sleep\x007797")
	})
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"sleep\x007794", "sleep\x007795", "sleep\x007796", "sleep\x007797"} { // 7797 left the group (setsid)
		if !proctest.Gone(m) {
			out, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,stat,args").Output()
			t.Errorf("%q outlived dsh-bridge:\n%s", strings.ReplaceAll(m, "\x00", " "), out)
		}
	}
}

// running reports whether a process matching marker runs now.
func running(marker string) bool { return proctest.Running(marker) }

// TestBridge_InitializeTouchesNothing: answering initialize neither opens
// the session store nor reads the settings; the first session/new does
// both.
func TestBridge_InitializeTouchesNothing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	cfg := t.TempDir()
	os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
	os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"models": 7}`), 0o600)
	m := newFakeModel(t)
	e := startEditor(t, "DSH_BASE_URL="+m.srv.URL, "DSH_STATE_DIR="+state, "XDG_CONFIG_HOME="+cfg)
	res, rerr := e.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if rerr != nil || !strings.Contains(string(res), `"loadSession":true`) {
		t.Errorf("initialize does not advertise loadSession: %s", res)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("initialize created the session store: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // stderr is copied from a pipe
	if strings.Contains(e.stderr.String(), "settings were ignored") {
		t.Error("initialize read the settings")
	}
	e.newSession(t.TempDir())
	if _, err := os.Stat(state); err != nil {
		t.Errorf("session/new did not open the store: %v", err)
	}
	e.waitFor(func() bool { return strings.Contains(e.stderr.String(), "settings were ignored") })
}
