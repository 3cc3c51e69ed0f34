package bridge_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var fakelsOnce sync.Once
var fakelsBin string

// fakels builds the misbehaving server (internal/lsptest/fakels).
func fakels(t *testing.T) string {
	fakelsOnce.Do(func() {
		dir, _ := os.MkdirTemp("", "fakels")
		fakelsBin = filepath.Join(dir, "fakels")
		if out, err := exec.Command("go", "build", "-o", fakelsBin, "../internal/lsptest/fakels").CombinedOutput(); err != nil {
			t.Fatalf("building fakels: %v\n%s", err, out)
		}
	})
	return fakelsBin
}

// TestBridge_LSPMisbehavingServer: a user's server that never answers,
// or crashes, or is missing, leaves edits working (the tool answers
// without diagnostics), and is reported once, in one notice, however
// many edits meet it.
func TestBridge_LSPMisbehavingServer(t *testing.T) {
	for _, mode := range []string{"hang", "crash", "missing"} {
		t.Run(mode, func(t *testing.T) {
			cmd := []string{fakels(t), mode}
			if mode == "missing" {
				cmd = []string{"/nonexistent/fake-server"}
			}
			user, _ := json.Marshal(map[string]any{"lsp": map[string]any{"fake": map[string]any{"command": cmd, "extensions": []string{".fake"}, "startTimeoutMs": 500}}})
			h := lspSetup(t, map[string]string{"a.fake": "one\n"}, string(user),
				fakeTurn{calls: []fakeCall{{"e1", "edit", args("file_path", "a.fake", "old_string", "one", "new_string", "two")}}},
				fakeTurn{calls: []fakeCall{{"e2", "edit", args("file_path", "a.fake", "old_string", "two", "new_string", "three")}}},
				fakeTurn{calls: []fakeCall{{"d", "diagnostics", args("file_path", "a.fake")}}},
				fakeTurn{text: "done"})
			h.prompt(h.session, "x")
			for i, id := range []string{"e1", "e2"} {
				if got := h.toolMessages(i + 1)[id]; !strings.Contains(got, "updated successfully") || strings.Contains(got, lspReports) {
					t.Errorf("%s: %q", id, got)
				}
			}
			if got := h.toolMessages(3)["d"]; !strings.Contains(got, "not available") {
				t.Errorf("diagnostics: %q", got)
			}
			if h.content("a.fake") != "three\n" {
				t.Errorf("the file: %q", h.content("a.fake"))
			}
			h.waitForNotice("The fake language server is not available")
			n := 0
			for _, u := range h.decodedUpdates() {
				if u.SessionUpdate == "notice" && strings.Contains(string(u.Raw), "language server") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d notices about the server, want 1", n)
			}
		})
	}
}

// TestBridge_LSPWorkspaceServersNeedTrust: a language server the
// workspace's own settings name runs only in a trusted workspace; an
// untrusted one gets a notice and no server for the language.
func TestBridge_LSPWorkspaceServersNeedTrust(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run("trusted="+strconv.FormatBool(trusted), func(t *testing.T) {
			ws, _ := json.Marshal(map[string]any{"lsp": map[string]any{"fake": map[string]any{"command": []string{fakels(t), "silent"}, "extensions": []string{".fake"}}}})
			user := `{}`
			if trusted {
				user = `{"trustedWorkspaces":["WORKSPACE"]}`
			}
			h := lspSetup(t, map[string]string{"a.fake": "one\n", ".dsh/settings.json": string(ws)}, user,
				fakeTurn{calls: []fakeCall{{"d", "diagnostics", args("file_path", "a.fake")}}},
				fakeTurn{text: "done"})
			h.prompt(h.session, "x")
			got := h.toolMessages(1)["d"]
			switch {
			case trusted && !strings.Contains(got, "reported nothing"):
				t.Errorf("trusted: the workspace's server did not run: %q", got)
			case !trusted && !strings.Contains(got, "no language server"):
				t.Errorf("untrusted: %q", got)
			}
			if !trusted {
				h.waitForNotice("This workspace's language servers were not used")
			}
		})
	}
}

// TestBridge_LSPServersDieWithTheBridge: gopls, started by an edit, does
// not outlive a kill -9 of the bridge (its supervisor ends it).
func TestBridge_LSPServersDieWithTheBridge(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "demo.go": "package demo\n\nfunc One() int { return 1 }\n"}
	h := lspSetup(t, files, `{}`,
		fakeTurn{calls: []fakeCall{{"e", "edit", args("file_path", "demo.go", "old_string", "return 1", "new_string", "return 2")}}},
		fakeTurn{text: "done"})
	h.prompt(h.session, "x")
	servers := inDir(h.dir, "gopls")
	if len(servers) == 0 {
		t.Fatal("no gopls runs in the workspace after the edit")
	}
	h.cmd.Process.Signal(syscall.SIGKILL)
	deadline := time.Now().Add(15 * time.Second)
	for left := servers; ; left = alivePids(servers) {
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("gopls %v outlived kill -9 of the bridge", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// inDir lists the processes named name whose working directory is dir.
func inDir(dir, name string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		if cwd == dir && strings.TrimSpace(string(comm)) == name {
			out = append(out, pid)
		}
	}
	return out
}

func alivePids(pids []int) []int {
	var out []int
	for _, p := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err == nil && !strings.Contains(string(stat), ") Z ") {
			out = append(out, p)
		}
	}
	return out
}
