package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/mcptools"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// mcpNotices holds what the MCP servers report until the editor knows the
// session (its session/new answer is written), then sends at once.
type mcpNotices struct {
	mu      sync.Mutex
	live    bool
	pending []noticeUpdate
}

// startMCP connects the session's MCP servers: the editor's, then those of
// the user's settings and, for a trusted workspace, the workspace's (the
// editor wins a name clash). It returns once every server has started or
// failed; failures become notices.
func (ss *Session) startMCP(ctx context.Context, fromEditor []json.RawMessage) error {
	editor, err := mcptools.FromACP(fromEditor)
	if err != nil {
		return invalidParams("%v", err)
	}
	settings := ss.mcpFromSettings()
	servers := mcptools.Merge(settings, editor)
	if len(servers) == 0 {
		return nil
	}
	self, _ := sandbox.Self()
	m := mcptools.Start(ctx, ss.srv.reg, ss.scope, servers, mcptools.Options{
		Version: ss.srv.cfg.Version, Log: ss.srv.log, Supervisor: self, Scrub: ss.settings.ScrubEnv,
		Report: ss.mcpReport, Progress: ss.mcpProgress,
	})
	ss.disposers = append(ss.disposers, m.Close)
	return nil
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
// make dsh-bridge start programs unless the user trusts it).
func (ss *Session) mcpFromSettings() []mcptools.Server {
	var out []mcptools.Server
	files := []string{ss.settings.UserFile}
	if ss.settings.WorkspaceFile != "" {
		if ss.settings.Trusted {
			files = append(files, ss.settings.WorkspaceFile)
		} else if servers, _ := readMCPSettings(ss.settings.WorkspaceFile); len(servers) > 0 {
			ss.mcpReport("warning", "This workspace's MCP servers were not started",
				fmt.Sprintf("%s configures %d MCP server(s), which start programs; the workspace is not trusted (add it to trustedWorkspaces in your settings).", ss.settings.WorkspaceFile, len(servers)))
		}
	}
	for _, f := range files {
		servers, err := readMCPSettings(f)
		if err != nil {
			ss.mcpReport("warning", "MCP servers in a settings file were ignored", err.Error())
			continue
		}
		out = mcptools.Merge(out, servers) // the workspace's win over the user's
	}
	return out
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
