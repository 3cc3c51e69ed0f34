package bridge

import (
	"context"
	"encoding/json"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// The permission options offered with every request.
var permissionOptions = []permissionOption{
	{OptionID: "allow_once", Name: "Allow once", Kind: "allow_once"},
	{OptionID: "allow_always", Name: "Always allow", Kind: "allow_always"},
	{OptionID: "reject_once", Name: "Reject", Kind: "reject_once"},
	{OptionID: "reject_always", Name: "Always reject", Kind: "reject_always"},
}

// permissionKey is what an always-decision for a call covers: the tool's
// own key (bash by command name, web_fetch by host) or its name.
func permissionKey(t *registry.Tool, args jsonv.Value) string {
	if t != nil && t.PermissionKey != nil && args.IsValid() {
		if k := t.PermissionKey(args); k != "" {
			return k
		}
	}
	if t == nil {
		return ""
	}
	return t.Name
}

// RequestApproval implements pipeline.Approver: an ask becomes a
// session/request_permission carrying the same toolCallId as the announced
// tool_call and the call's card content (the diff of an edit, the command
// of bash). The session remembers allow_always and reject_always by
// permission key — but an always-allow never covers a call that reaches
// outside the workspace. A cancelled outcome, a cancelled turn, or a
// session/cancel while the request is open resolves as Cancelled; a failed
// request as Unavailable; an unknown option as Rejected.
func (s *Server) RequestApproval(ctx context.Context, req pipeline.ApprovalRequest) pipeline.ApprovalOutcome {
	s.mu.Lock()
	ss := s.byScope[req.Exec.Scope]
	s.mu.Unlock()
	if ss == nil {
		return pipeline.Unavailable
	}
	tool := s.reg.Get(req.ToolName, ss.scope)
	key := permissionKey(tool, req.Exec.Arguments)
	outside := tools.OutsideWorkspace(tool, ss.ws, req.Exec.Arguments)
	ss.mu.Lock()
	rejected, allowed := ss.reject[key], ss.allow[key] && !outside
	info := ss.calls[req.CallID]
	ss.mu.Unlock()
	switch {
	case rejected:
		return pipeline.Rejected
	case allowed:
		return pipeline.AllowedOnce
	}
	ss.syncLog() // what led here survives a crash while the person decides
	view := s.presenter.Call(req.ToolName, req.Exec.Arguments, ss.scope)
	if info != nil {
		view = info.view
	}
	params := map[string]any{
		"sessionId": ss.id,
		"toolCall":  views.Permission(ss.env, req.CallID, req.ToolName, view, req.Exec.Arguments),
		"options":   permissionOptions,
	}
	var resp permissionResponse
	var raw json.RawMessage
	if err := s.conn.Call(ctx, "session/request_permission", params, &raw); err != nil {
		if ctx.Err() != nil {
			return pipeline.Cancelled
		}
		s.log.Warn("session/request_permission failed", "err", err)
		return pipeline.Unavailable
	}
	if json.Unmarshal(raw, &resp) != nil {
		return pipeline.Rejected
	}
	if resp.Outcome.Outcome == "cancelled" {
		return pipeline.Cancelled
	}
	if ctx.Err() != nil {
		return pipeline.Cancelled
	}
	switch resp.Outcome.OptionID {
	case "allow_once":
		return pipeline.AllowedOnce
	case "allow_always":
		ss.mu.Lock()
		ss.allow[key] = true
		ss.mu.Unlock()
		return pipeline.AllowedOnce
	case "reject_always":
		ss.mu.Lock()
		ss.reject[key] = true
		ss.mu.Unlock()
	}
	return pipeline.Rejected
}
