package bridge

import (
	"context"
	"encoding/json"

	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// The permission options offered with every request.
var permissionOptions = []permissionOption{
	{OptionID: "allow_once", Name: "Allow once", Kind: "allow_once"},
	{OptionID: "allow_always", Name: "Always allow", Kind: "allow_always"},
	{OptionID: "reject_once", Name: "Reject", Kind: "reject_once"},
	{OptionID: "reject_always", Name: "Always reject", Kind: "reject_always"},
}

// optionsFor is permissionOptions with, on the two "always" options,
// _meta.dsh.remembers: what the answer would remember, in words (an
// empty list when it covers only this call).
func optionsFor(d permission.Decision) []permissionOption {
	remembers := d.Remembers
	if remembers == nil {
		remembers = []string{}
	}
	meta := map[string]any{"dsh": map[string]any{"remembers": remembers}}
	opts := append([]permissionOption(nil), permissionOptions...)
	for i := range opts {
		if opts[i].Kind == "allow_always" || opts[i].Kind == "reject_always" {
			opts[i].Meta = meta
		}
	}
	return opts
}

// RequestApproval implements pipeline.Approver: an ask becomes a
// session/request_permission carrying the same toolCallId as the announced
// tool_call, the call's card content (the diff of an edit, the command of
// bash) and what is not yet allowed. "Always" answers are remembered by
// the policy under the keys of the asking decision (req.Data): a program and subcommand for each
// command not yet allowed, a host, a tool — and nothing for calls outside
// the workspace, protected files and escalations, which every time ask. A
// cancelled outcome, a cancelled turn, or a session/cancel while the
// request is open resolves as Cancelled; a failed request as Unavailable;
// an unknown option as Rejected.
func (s *Server) RequestApproval(ctx context.Context, req pipeline.ApprovalRequest) pipeline.ApprovalOutcome {
	s.mu.Lock()
	ss := s.byScope[req.Exec.Scope]
	s.mu.Unlock()
	if ss == nil {
		return pipeline.Unavailable
	}
	tool := s.reg.Get(req.ToolName, ss.scope)
	decision, ok := req.Data.(permission.Decision) // the asking policy's
	if !ok {
		decision = permission.Decision{Reason: req.Reason} // another listener asked
	}
	ss.mu.Lock()
	info := ss.calls[req.CallID]
	ss.mu.Unlock()
	ss.syncLog() // what led here survives a crash while the person decides
	view := s.presenter.Call(req.ToolName, req.Exec.Arguments, ss.scope)
	if info != nil {
		view = info.view
	}
	toolCall := views.Permission(ss.env, req.CallID, req.ToolName, view, req.Exec.Arguments)
	// Commands in the editor's terminal are sandboxed as local ones are;
	// without a sandbox the person is told where this one runs.
	terminal := tool != nil && tool.Effect == registry.EffectExecute && ss.caps.Terminal && ss.sandbox == nil
	if text := pendingText(decision, terminal); text != "" {
		toolCall.Content = append(toolCall.Content, views.TextItem(text))
	}
	params := map[string]any{
		"sessionId": ss.cardSession(req.CallID), // a child's, for a subagents client's child session
		"toolCall":  toolCall,
		"options":   optionsFor(decision),
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
		ss.policy.Remember(decision.Keys, true)
		return pipeline.AllowedOnce
	case "reject_always":
		ss.policy.Remember(decision.Keys, false)
	}
	return pipeline.Rejected
}
