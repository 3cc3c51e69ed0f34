package bridge

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// toolsModes are the choices of the tools_mode config option.
var toolsModes = []selectOption{
	{Value: string(registry.Native), Name: "Native", Description: "The model calls each tool directly."},
	{Value: string(registry.Code), Name: "Code", Description: "The model writes one TypeScript program (run_code) that calls the tools; each call still shows as its own card."},
	{Value: string(registry.Both), Name: "Both", Description: "Direct tool calls and run_code programs."},
}

// installCodeMode gives the server's registry its run_code transport
// (once, through s.codeMode).
func (s *Server) installCodeMode() error {
	rc := codemode.New(s.pipe, s.cfg.CodeMode)
	t, err := rc.Tool()
	if err != nil {
		return err
	}
	return s.reg.InstallCodeMode(t)
}

// setToolsMode presents the session's tools as mode (one declaration per
// scope: the previous one is lifted first).
func (ss *Session) setToolsMode(mode string) error {
	p := registry.Presentation(mode)
	if p != registry.Native && p != registry.Code && p != registry.Both {
		return acp.InvalidParams("session/set_config_option: unknown tools mode %q (available: native, code, both)", mode)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.presentation != nil {
		ss.presentation()
		ss.presentation = nil
	}
	dispose, err := ss.srv.reg.PresentAs(ss.scope, p)
	if err != nil {
		return err
	}
	ss.presentation, ss.toolsMode = dispose, mode
	return nil
}

// The session is the codemode.Observer of its run_code calls: every
// sub-call is a tool_call of its own, nested under the run_code card
// through _meta.dsh.parentToolCallId, with its own approval prompt.
var _ codemode.Observer = (*Session)(nil)

// SubCallStarted announces the sub-call's pending card, its id reserved
// in the session's card ids.
func (ss *Session) SubCallStarted(outer registry.Execution, c pipeline.Call) {
	view := ss.srv.presenter.Preview(context.Background(), c.Name, c.Args, ss.scope)
	ss.cards.reserve(c.CallID)
	ss.mu.Lock()
	session, parent := ss.placeSub(outer.CallID)
	ss.calls[c.CallID] = &callInfo{name: c.Name, args: c.Args, view: view, parent: parent, session: session}
	ss.mu.Unlock()
	u := views.Call(ss.env, c.CallID, c.Name, view, c.Args, views.Pending)
	views.SetParent(&u, parent)
	ss.srv.notify(context.Background(), ss.cardSession(c.CallID), u)
}

// SubCallState reports a sub-call that starts running.
func (ss *Session) SubCallState(_ registry.Execution, id string, st pipeline.State) {
	if st == pipeline.Running {
		ss.srv.notify(context.Background(), ss.cardSession(id), views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: id, Status: views.InProgress})
	}
}

// SubCallCommitted finishes the sub-call's card and keeps its durable
// record for the outer call's turn. Sub-calls carry no presentation meta
// (contract §6); the card's is computed here, for the editor only.
func (ss *Session) SubCallCommitted(outer registry.Execution, c pipeline.Call, r registry.Result, logged []card.Content) {
	var meta jsonv.Value
	if t := ss.srv.reg.Get(c.Name, ss.scope); t != nil && t.Output.PresentationMeta != nil && !r.IsError && r.Value.IsValid() {
		func() {
			defer func() { _ = recover() }() // a failing projection only costs the rich card
			meta, _ = t.Output.PresentationMeta(c.Args, r.Value)
		}()
	}
	tc := model.ToolCall{ID: c.CallID, Name: c.Name, Arguments: c.Args.String()}
	ss.finish(context.Background(), tc, registry.ToolResult{Content: r.Content, IsError: r.IsError, Meta: meta})
	ss.mu.Lock()
	ss.subCalls[outer.CallID] = append(ss.subCalls[outer.CallID], store.Event{
		Kind: store.KindCodeDispatch, ParentCallID: outer.CallID, CallID: c.CallID, Name: c.Name, Arguments: c.Args.String(),
		Content: logged, IsError: r.IsError, Error: r.Error, Meta: meta,
	})
	ss.mu.Unlock()
}

// takeSubCalls returns and forgets the recorded sub-calls of a call.
func (ss *Session) takeSubCalls(callID string) []store.Event {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	evs := ss.subCalls[callID]
	delete(ss.subCalls, callID)
	return evs
}

// replaySubCall shows a logged sub-call as it was shown live.
func (ss *Session) replaySubCall(ctx context.Context, e store.Event) {
	args := registry.CallArgs([]byte(e.Arguments))
	ss.SubCallStarted(registry.Execution{CallID: e.ParentCallID}, pipeline.Call{CallID: e.CallID, Name: e.Name, Args: args})
	ss.finish(ctx, model.ToolCall{ID: e.CallID, Name: e.Name, Arguments: e.Arguments}, registry.ToolResult{Content: e.Content, IsError: e.IsError, Meta: e.Meta})
}
