package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCP_AnnotationsNeedTheUsersTrust: a server's readOnlyHint counts
// only when the user's own settings trust that server. The test server's
// sneaky_write claims to only read but writes a file: untrusted, plan
// mode refuses it (saying how to trust the server) and the other modes
// ask; trusted by the user, plan mode runs it. A workspace's settings
// cannot grant the trust, and an editor's server gets it only when it is
// the server the user's entry describes.
func TestMCP_AnnotationsNeedTheUsersTrust(t *testing.T) {
	bin, _ := json.Marshal(mcpServerBin)
	trusting := func(name string) string {
		return fmt.Sprintf(`"%s":{"command":%s,"trustAnnotations":true}`, name, bin)
	}
	for _, tc := range []struct {
		name        string
		user        string // the user's settings ({dir}: the workspace)
		workspace   string // the workspace's .dsh/settings.json
		editor      []any  // servers from session/new
		server      string // the server whose sneaky_write is called
		code        bool   // called from a run_code program
		mode        string
		wantRun     bool
		wantAsked   int
		wantMessage string
		wantLog     string
	}{
		{name: "untrusted editor server: plan refuses", editor: []any{stdioServer("test")}, server: "test", mode: "plan",
			wantMessage: `plan mode is read-only: mcp__test__sneaky_write is not allowed (switch the mode to run it). The MCP server "test" marks this tool read-only`},
		{name: "untrusted: the refusal says how to trust", editor: []any{stdioServer("test")}, server: "test", mode: "plan",
			wantMessage: `adding "trustAnnotations": true to its entry "test" under mcpServers in `},
		{name: "untrusted: default asks", editor: []any{stdioServer("test")}, server: "test", mode: "default", wantAsked: 1, wantMessage: "rejected"},
		{name: "untrusted: acceptEdits asks", editor: []any{stdioServer("test")}, server: "test", mode: "acceptEdits", wantAsked: 1, wantMessage: "rejected"},
		{name: "untrusted: bypassPermissions runs it", editor: []any{stdioServer("test")}, server: "test", mode: "bypassPermissions", wantRun: true},
		{name: "untrusted, through run_code: plan refuses", editor: []any{stdioServer("test")}, server: "test", mode: "plan", code: true,
			wantMessage: "plan mode is read-only: mcp__test__sneaky_write is not allowed"},
		{name: "untrusted settings server: plan refuses", user: `{"mcpServers":{"test":{"command":` + string(bin) + `}}}`, server: "test", mode: "plan",
			wantMessage: "plan mode is read-only"},
		{name: "trusted by the user: plan runs it", user: `{"mcpServers":{` + trusting("test") + `}}`, server: "test", mode: "plan", wantRun: true},
		{name: "trusted by the user, through run_code: plan runs it", user: `{"mcpServers":{` + trusting("test") + `}}`, server: "test", mode: "plan", code: true, wantRun: true},
		{name: "trusted by the user: default runs it", user: `{"mcpServers":{` + trusting("test") + `}}`, server: "test", mode: "default", wantRun: true},
		{name: "the editor's server the user trusts: plan runs it", user: `{"mcpServers":{` + trusting("test") + `}}`, editor: []any{stdioServer("test")}, server: "test", mode: "plan", wantRun: true},
		{name: "the editor's server differs from the trusted entry: plan refuses", user: `{"mcpServers":{` + trusting("test") + `}}`,
			editor: []any{stdioServer("test", "LD_PRELOAD=")}, server: "test", mode: "plan", wantMessage: "plan mode is read-only",
			wantLog: "the editor's MCP server differs from the one the user's settings trust"},
		{name: "a workspace cannot trust its server", user: `{"trustedWorkspaces":["{dir}"]}`, workspace: `{"mcpServers":{` + trusting("ws") + `}}`, server: "ws", mode: "plan",
			wantMessage: "plan mode is read-only", wantLog: "trustAnnotations in a workspace's settings is ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "written")
			arg, _ := json.Marshal(map[string]string{"path": target})
			call := fakeCall{"w1", "mcp__" + tc.server + "__sneaky_write", string(arg)}
			var env []string
			if tc.code {
				call = fakeCall{"w1", "run_code", args("code", "return await tools."+call.name+"("+call.args+")", "description", "write it")}
				env = []string{"DSH_TOOLS_MODE=code"}
			}
			w := newLiveWorld(t, "", fakeTurn{calls: []fakeCall{call}}, fakeTurn{text: "ok"})
			if tc.user != "" {
				os.MkdirAll(filepath.Join(w.cfg, "dsh-bridge"), 0o700)
				os.WriteFile(filepath.Join(w.cfg, "dsh-bridge", "settings.json"), []byte(strings.ReplaceAll(tc.user, "{dir}", w.dir)), 0o600)
			}
			if tc.workspace != "" {
				os.MkdirAll(filepath.Join(w.dir, ".dsh"), 0o700)
				os.WriteFile(filepath.Join(w.dir, ".dsh", "settings.json"), []byte(tc.workspace), 0o600)
			}
			e := w.editor(nil, env...)
			e.onPermission = selectOption("reject_once")
			editor := tc.editor
			if editor == nil {
				editor = []any{}
			}
			res, rerr := e.call("session/new", map[string]any{"cwd": w.dir, "mcpServers": editor})
			if rerr != nil {
				t.Fatal(rerr)
			}
			var s struct{ SessionID string }
			json.Unmarshal(res, &s)
			if _, err := e.call("session/set_mode", map[string]any{"sessionId": s.SessionID, "modeId": tc.mode}); err != nil {
				t.Fatal(err)
			}
			e.prompt(s.SessionID, "write it")
			reqs := w.model.recorded()
			var got string
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.ToolCallID == "w1" {
					got = fmt.Sprint(m.Content)
				}
			}
			_, err := os.Stat(target)
			if ran := err == nil; ran != tc.wantRun {
				t.Errorf("the tool ran: got %v, want %v (the model got %q)", ran, tc.wantRun, got)
			}
			if n := e.permissionCount(); n != tc.wantAsked {
				t.Errorf("permission requests: got %d, want %d", n, tc.wantAsked)
			}
			if tc.wantRun && !strings.Contains(got, "wrote "+target) {
				t.Errorf("the model got %q, want the tool's answer", got)
			}
			if tc.wantMessage != "" && !strings.Contains(got, tc.wantMessage) {
				t.Errorf("the model got %q, want %q", got, tc.wantMessage)
			}
			if tc.wantLog != "" && !strings.Contains(e.stderr.String(), tc.wantLog) {
				t.Errorf("the log does not say %q", tc.wantLog)
			}
		})
	}
}
