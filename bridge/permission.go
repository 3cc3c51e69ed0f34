package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/dsh-bridge/dsh-bridge/permission"
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
	return s.RequestApprovalDetail(ctx, req).Outcome
}

// RequestApprovalDetail implements pipeline.DetailedApprover: RequestApproval,
// and a partial approval. The request of a call whose pending card is a
// proposal (views.ProposedHunks) says how many hunks it proposes
// (_meta.dsh.partialApproval.hunks); an allowing answer with
// _meta.dsh.hunks grants those hunks alone (a tools.HunkSelection), an
// empty list rejects, and a list that is no selection of the proposal's
// hunks refuses the call with the reason. An "always" answer with a list
// remembers nothing.
func (s *Server) RequestApprovalDetail(ctx context.Context, req pipeline.ApprovalRequest) pipeline.Approval {
	s.mu.Lock()
	ss := s.byScope[req.Exec.Scope]
	s.mu.Unlock()
	if ss == nil {
		return pipeline.Approval{Outcome: pipeline.Unavailable}
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
	path, hunks, proposal := views.ProposedHunks(ss.env, view)
	if proposal {
		params["_meta"] = map[string]any{"dsh": map[string]any{"partialApproval": map[string]any{"hunks": len(hunks)}}}
	}
	var resp permissionResponse
	var raw json.RawMessage
	if err := s.conn.Call(ctx, "session/request_permission", params, &raw); err != nil {
		if ctx.Err() != nil {
			return pipeline.Approval{Outcome: pipeline.Cancelled}
		}
		s.log.Warn("session/request_permission failed", "err", err)
		return pipeline.Approval{Outcome: pipeline.Unavailable}
	}
	if json.Unmarshal(raw, &resp) != nil {
		return pipeline.Approval{Outcome: pipeline.Rejected}
	}
	selected := answerHunks(raw)
	outcome := s.outcome(ctx, ss, decision, resp, selected == nil)
	if outcome != pipeline.AllowedOnce || selected == nil {
		return pipeline.Approval{Outcome: outcome}
	}
	return grantHunks(req.ToolName, path, hunks, selected)
}

// outcome is the answer's outcome; remember says whether an "always"
// option is remembered.
func (s *Server) outcome(ctx context.Context, ss *Session, decision permission.Decision, resp permissionResponse, remember bool) pipeline.ApprovalOutcome {
	if resp.Outcome.Outcome == "cancelled" {
		return pipeline.Cancelled
	}
	if ctx.Err() != nil {
		return pipeline.Cancelled
	}
	if !remember && resp.Outcome.OptionID == "allow_always" {
		return pipeline.AllowedOnce
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

// What is wrong with a selection that is not a list of integers.
var (
	errNotHunkList = errors.New("_meta.dsh.hunks is not a list of hunk indices")
	errNotInteger  = errors.New("not an integer") // an element's, with errNotHunkList
)

// grantHunks is an allowing answer that accepted the hunks selected (the
// response's raw _meta.dsh.hunks) of the proposal's hunks of path: a grant
// of those alone, a rejection for none, a refusal naming what is wrong
// with a selection that is none of the proposal (no proposal, not a list
// of indices, an index out of range or given twice).
func grantHunks(tool, path string, hunks []views.Hunk, selected json.RawMessage) pipeline.Approval {
	refuse := func(why string) pipeline.Approval {
		return pipeline.Approval{Outcome: pipeline.Rejected, Reason: `the editor's partial approval of tool "` + tool + `" was refused, and nothing was done: ` + why}
	}
	if len(hunks) == 0 {
		return refuse("the call proposed no hunks to choose from")
	}
	accepted, err := hunkIndices(selected)
	if err != nil {
		return refuse(err.Error())
	}
	if len(accepted) == 0 {
		return pipeline.Approval{Outcome: pipeline.Rejected, Reason: `the user rejected every hunk of tool "` + tool + `"`}
	}
	sel, err := tools.NewHunkSelection(path, hunks, accepted)
	if err != nil {
		return refuse(err.Error())
	}
	return pipeline.Approval{Outcome: pipeline.AllowedOnce, Grant: sel}
}
