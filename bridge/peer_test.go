package bridge_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const peerSDK = "@agentclientprotocol/sdk@2.4.0"

// missing skips a test locally and fails it under CI, where every test
// dependency must be installable.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// npmDir returns a scratch folder (cached across runs) where the npm
// packages pkgs are installed; marker is a path under node_modules that
// exists once they are.
func npmDir(t *testing.T, name, marker string, pkgs ...string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		missing(t, "node is not installed")
	}
	dir := filepath.Join(os.TempDir(), name)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", marker)); err != nil {
		os.MkdirAll(dir, 0o755)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		for _, args := range [][]string{{"init", "-y"}, append([]string{"install", "--silent", "--no-audit", "--no-fund"}, pkgs...)} {
			cmd := exec.CommandContext(ctx, "npm", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				missing(t, "npm %v: %v\n%s", args, err, out)
			}
		}
	}
	return dir
}

// peerDir prepares a scratch folder with the official-SDK conformance peer
// (../shared/acp/peer.mjs, copied, never committed) and its npm packages.
// Without node or npm the test is skipped locally and fails under CI.
func peerDir(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../../shared/acp/peer.mjs")
	if err != nil {
		t.Fatal(err)
	}
	peer, err := os.ReadFile(src)
	if err != nil {
		missing(t, "the conformance peer is not available: %v", err)
	}
	dir := npmDir(t, "dsh-bridge-acp-peer-2.4.0", "@agentclientprotocol/sdk", peerSDK, "zod@4")
	if err := os.WriteFile(filepath.Join(dir, "peer.mjs"), peer, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestConformancePeer(t *testing.T) {
	dir := peerDir(t)
	script := func() []fakeTurn {
		return []fakeTurn{
			{reasoning: "Look first.", text: "Reading and editing.", calls: []fakeCall{
				{"c_read", "read", args("file_path", "a.txt")},
				{"c_grep", "grep", args("pattern", "hello")},
			}},
			{calls: []fakeCall{{"c_edit", "edit", args("file_path", "a.txt", "old_string", "hello", "new_string", "hello, ACP")}}},
			{calls: []fakeCall{{"c_write", "write", args("file_path", "sub/new.txt", "content", "new file\n")}}},
			{calls: []fakeCall{{"c_bash", "bash", args("command", "echo building; echo done", "description", "build")}}},
			{text: "All done."},
		}
	}
	withMCP := append([]fakeTurn{{calls: []fakeCall{{"c_mcp", "mcp__test__echo", `{"text":"from the peer run"}`}, {"c_mcp2", "mcp__test__fail", `{}`}}}}, script()...)
	for _, tc := range []struct {
		name  string
		flags []string
		model []fakeTurn
		mcp   bool // an MCP server configured (through the user's settings: the peer sends none)
	}{
		{"fs and terminal", []string{"--permission", "allow_once"}, script(), false},
		{"no fs, no terminal", []string{"--permission", "allow_always", "--no-fs", "--no-terminal"}, script(), false},
		{"rejections", []string{"--permission", "reject_once"}, script(), false},
		{"cancel mid-turn", []string{"--permission", "allow_once", "--cancel-after", "300"}, []fakeTurn{{text: "thinking", hang: true}}, false},
		{"with an MCP server", []string{"--permission", "allow_once"}, withMCP, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
			m := newFakeModel(t, tc.model...)
			log := filepath.Join(t.TempDir(), "messages.jsonl")
			args := append([]string{filepath.Join(dir, "peer.mjs"), "--cwd", ws, "--prompt", "edit the file", "--log", log, "--timeout", "60000"}, tc.flags...)
			args = append(args, "--", binary)
			cmd := exec.Command("node", args...)
			cmd.Dir = dir
			cfg := t.TempDir()
			if tc.mcp {
				os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
				os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"mcpServers":{"test":{"command":"`+mcpServerBin+`"}}}`), 0o600)
			}
			cmd.Env = append(os.Environ(), "DSH_BASE_URL="+m.srv.URL, "DSH_API_KEY=test-key", "DSH_MODEL=", "DSH_STATE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+cfg)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the conformance peer reported problems (%v):\n%s", err, out)
			}
			if !strings.Contains(string(out), "no problems found") {
				t.Errorf("the peer exited cleanly but did not report a clean run:\n%s", out)
			}
			t.Logf("peer summary: %s", lastLine(string(out)))
			if tc.mcp {
				reqs := m.recorded()
				var got string
				for _, msg := range reqs[1].Messages {
					if msg.ToolCallID == "c_mcp" {
						got = fmt.Sprint(msg.Content)
					}
				}
				if got != "echo: from the peer run" {
					t.Errorf("the MCP tool gave %q", got)
				}
			}
			if tc.name == "fs and terminal" {
				if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "hello, ACP\n" {
					t.Errorf("a.txt = %q", b)
				}
				if b, _ := os.ReadFile(filepath.Join(ws, "sub/new.txt")); string(b) != "new file\n" {
					t.Errorf("sub/new.txt = %q", b)
				}
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
