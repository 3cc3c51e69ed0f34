package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/mcptools"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/views"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// mcpNotices holds what the MCP servers report until the editor knows the
// session (its session/new answer is written), then sends at once; and
// the session's MCP manager (nil: no servers).
type mcpNotices struct {
	mu      sync.Mutex
	live    bool
	pending []noticeUpdate
	manager *mcptools.Manager
}

// startMCP connects the session's MCP servers: the editor's, then those of
// the user's settings and, for a trusted workspace, the workspace's (the
// editor wins a name clash). It returns once every server has started or
// failed; failures become notices.
//
// A server's tool annotations decide how its calls are judged only when
// the user's own settings file trusts it (trustAnnotations): a
// workspace's file never can, and a server from the editor only when the
// user's entry of its name describes the same server, since a
// workspace's files can feed the editor's MCP configuration too.
func (ss *Session) startMCP(ctx context.Context, fromEditor []json.RawMessage) error {
	editor, err := mcptools.FromACP(fromEditor)
	if err != nil {
		return acp.InvalidParams("%v", err)
	}
	user, workspace := ss.mcpFromSettings()
	editor, differ := mcptools.TrustFromUser(editor, user)
	for _, name := range differ {
		ss.srv.log.Warn("the editor's MCP server differs from the one the user's settings trust; its annotations are not trusted",
			"server", name, "settings", ss.settings.UserFile)
	}
	neutral := mcpDir(ss.ws.Roots())
	for i := range user {
		user[i].Dir = neutral
	}
	for i := range editor {
		editor[i].Dir = neutral // ACP's McpServerStdio has no folder of its own
	}
	for i := range workspace {
		workspace[i].Dir = ss.ws.Cwd() // a trusted workspace's own programs
	}
	servers := mcptools.Merge(mcptools.Merge(user, workspace), editor)
	if len(servers) == 0 {
		return nil
	}
	self := ss.srv.cfg.Self
	if self == "" {
		self, _ = sandbox.Self()
	}
	m := mcptools.Start(ctx, ss.srv.reg, ss.scope, servers, mcptools.Options{
		Version: ss.srv.cfg.Version, Log: ss.srv.log, Supervisor: self, Scrub: ss.settings.ScrubEnv,
		UserSettings: ss.settings.UserFile, Report: ss.mcpReport, Progress: ss.mcpProgress,
	})
	ss.mcp.mu.Lock()
	ss.mcp.manager = m
	ss.mcp.mu.Unlock()
	ss.disposers = append(ss.disposers, m.Close)
	return nil
}

// mcpDir is the folder the user's and the editor's MCP servers start in:
// the user's home, where a launcher that resolves programs from its
// working directory (npx, python -m, uv run, node ./x) finds the user's
// own, as in a shell the user opened, and no workspace's; "/" when the
// home is unknown or lies in one of roots (the workspace's resolved
// directories).
func mcpDir(roots []string) string {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "/"
	}
	home = workspace.Resolve(home)
	for _, r := range roots {
		if safepath.Within(home, r) {
			return "/"
		}
	}
	return home
}

// mcpPlanNote is what a plan-mode refusal of tool adds when its MCP
// server claims it only reads but is not trusted to say so, or "".
func (ss *Session) mcpPlanNote(tool string) string {
	ss.mu.Lock()
	plan := ss.mode == ModePlan
	ss.mu.Unlock()
	ss.mcp.mu.Lock()
	m := ss.mcp.manager
	ss.mcp.mu.Unlock()
	if !plan || m == nil {
		return ""
	}
	return m.PlanNote(tool)
}

// mcpReport sends a server's news to the editor, or keeps it until the
// session is announced.
func (ss *Session) mcpReport(severity, title, desc string) {
	n := noticeUpdate{SessionUpdate: "notice", Severity: severity, Title: title, Description: desc}
	ss.mcp.mu.Lock()
	if !ss.mcp.live {
		ss.mcp.pending = append(ss.mcp.pending, n)
		ss.mcp.mu.Unlock()
		return
	}
	ss.mcp.mu.Unlock()
	ss.srv.notify(context.Background(), ss.id, n)
}

// mcpProgress shows a server's progress on the call's card.
func (ss *Session) mcpProgress(callID, message string, progress, total float64) {
	text := strconv.FormatFloat(progress, 'f', -1, 64)
	if total > 0 {
		text += " / " + strconv.FormatFloat(total, 'f', -1, 64)
	}
	if message != "" {
		text += " — " + message
	}
	ss.srv.notify(context.Background(), ss.id, views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: callID,
		Status: views.InProgress, Content: []views.ToolCallContent{views.TextItem("Progress: " + text)}})
}

// flushMCPNotices sends the kept notices; later ones go out at once.
func (ss *Session) flushMCPNotices(ctx context.Context) {
	ss.mcp.mu.Lock()
	pending := ss.mcp.pending
	ss.mcp.pending, ss.mcp.live = nil, true
	ss.mcp.mu.Unlock()
	for _, n := range pending {
		ss.srv.notify(ctx, ss.id, n)
	}
}

// mcpFromSettings reads "mcpServers" from the user's settings file and,
// when the workspace is trusted, from the workspace's (a workspace cannot
// make dsh-bridge start programs unless the user trusts it). A
// workspace's trustAnnotations is ignored, with a warning in the log.
func (ss *Session) mcpFromSettings() (user, workspace []mcptools.Server) {
	user = ss.readMCPFile(ss.settings.UserFile)
	if ss.settings.WorkspaceFile == "" {
		return user, nil
	}
	if !ss.settings.Trusted {
		if servers, _ := readMCPSettings(ss.settings.WorkspaceFile); len(servers) > 0 {
			ss.mcpReport("warning", "This workspace's MCP servers were not started",
				fmt.Sprintf("%s configures %d MCP server(s), which start programs; the workspace is not trusted (add it to trustedWorkspaces in your settings).", ss.settings.WorkspaceFile, len(servers)))
		}
		return user, nil
	}
	workspace = ss.readMCPFile(ss.settings.WorkspaceFile)
	for i := range workspace {
		if workspace[i].TrustAnnotations {
			ss.srv.log.Warn("trustAnnotations in a workspace's settings is ignored; only the user's settings can trust a server's annotations",
				"server", workspace[i].Name, "file", ss.settings.WorkspaceFile)
			workspace[i].TrustAnnotations = false
		}
	}
	return user, workspace
}

// readMCPFile is one settings file's servers; a problem is reported and
// leaves none.
func (ss *Session) readMCPFile(path string) []mcptools.Server {
	servers, err := readMCPSettings(path)
	if err != nil {
		ss.mcpReport("warning", "MCP servers in a settings file were ignored", err.Error())
		return nil
	}
	return servers
}

func readMCPSettings(path string) ([]mcptools.Server, error) {
	if path == "" {
		return nil, nil
	}
	data, err := permission.ReadConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var f struct {
		MCPServers mcptools.Settings `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	servers, err := f.MCPServers.Servers()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return servers, nil
}
