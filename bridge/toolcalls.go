package bridge

// A model turn's tool calls as the editor sees them: announced as
// pending cards, run through the scheduler, finished with their result
// cards, and failed when they will never run.

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// pruneCalls forgets the turn's announced calls: nothing refers to them
// once the turn has ended (a session/load replay announces its own).
func (ss *Session) pruneCalls() {
	ss.mu.Lock()
	clear(ss.calls)
	ss.mu.Unlock()
}

// announce sends the pending tool_call of a replayed call: its card comes
// from the arguments alone, so a log replays to the same cards.
func (ss *Session) announce(ctx context.Context, tc model.ToolCall) {
	args := registry.CallArgs([]byte(tc.Arguments))
	ss.announceCard(ctx, tc, args, ss.srv.presenter.Call(tc.Name, args, ss.scope))
}

// announceLive sends the pending tool_call of a call the model finished:
// its card may preview the change on the files as they are now (an edit's
// true diff).
func (ss *Session) announceLive(ctx context.Context, tc model.ToolCall) {
	args := registry.CallArgs([]byte(tc.Arguments))
	ss.announceCard(ctx, tc, args, ss.srv.presenter.Preview(ctx, tc.Name, args, ss.scope))
}

func (ss *Session) announceCard(ctx context.Context, tc model.ToolCall, args jsonv.Value, view card.CallView) {
	ss.mu.Lock()
	ss.calls[tc.ID] = &callInfo{name: tc.Name, args: args, view: view}
	ss.mu.Unlock()
	ss.srv.notify(ctx, ss.id, views.Call(ss.env, tc.ID, tc.Name, view, args, views.Pending))
	if ss.env.Tokenizer != nil && views.ShowsProgram(view) {
		// A program's syntax tokens follow its card, as a read's follow
		// its result; the turn waits for them before it answers.
		ss.tokens.Add(1)
		go func() {
			defer ss.tokens.Done()
			if u, ok := views.ProgramTokens(ctx, ss.env, tc.ID, view); ok {
				ss.srv.notify(ctx, ss.id, u)
			}
		}()
	}
}

// runTools drives one model turn's calls through the scheduler, streaming
// statuses, and returns the results in model order.
func (ss *Session) runTools(ctx context.Context, tcs []model.ToolCall) []registry.Result {
	calls := make([]pipeline.Call, len(tcs))
	for i, tc := range tcs {
		calls[i] = pipeline.Call{CallID: tc.ID, Name: tc.Name, Arguments: []byte(tc.Arguments), Scope: ss.scope}
	}
	s := ss.srv
	// run_code's sub-calls are reported to the session (nested cards).
	return s.pipe.ExecuteBatch(codemode.WithObserver(ctx, ss), calls, pipeline.BatchOptions{
		MaxParallel: s.cfg.MaxParallel,
		OnState: func(i int, st pipeline.State, res *registry.Result) {
			tc := tcs[i]
			switch st {
			case pipeline.Running:
				s.notify(ctx, ss.id, views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: tc.ID, Status: views.InProgress})
			case pipeline.Finished:
				ss.finish(ctx, tc, registry.ToolResult{Content: res.Content, IsError: res.IsError, Meta: res.Meta})
			}
		},
	})
}

// finish sends a call's final tool_call_update: its result card, computed
// from the durable result only, so that live turns and session replay show
// the same card.
func (ss *Session) finish(ctx context.Context, tc model.ToolCall, r registry.ToolResult) {
	ss.mu.Lock()
	info := ss.calls[tc.ID]
	ss.mu.Unlock()
	var call card.CallView
	var args jsonv.Value
	env := ss.env
	parent, session := "", ss.id
	if info != nil { // else no pending card: Result gives the raw one, without the arguments
		call, args, env.TerminalID, parent = info.view, info.args, info.terminalID, info.parent
		if info.session != "" {
			session = info.session
		}
	}
	view := ss.srv.presenter.Result(tc.Name, args, ss.scope, call, r)
	u := views.Result(env, tc.ID, tc.Name, call, view, r.IsError, r.Content)
	views.SetParent(&u, parent)
	ss.srv.notify(ctx, session, u)
	ss.sendPlan(ctx, session, tc, r)
	if _, isRead := view.(*card.Read); isRead && !r.IsError {
		// Syntax tokens follow the result, off the turn's hot path; the
		// turn (or the load) waits for them before it answers.
		ss.tokens.Add(1)
		go func() { // owned by the session: ss.tokens waits for it
			defer ss.tokens.Done()
			if u, ok := views.ReadTokens(ctx, env, tc.ID, view); ok {
				ss.srv.notify(ctx, session, u)
			}
		}()
	}
}

// failUnfinished ends announced calls that will never run (the turn was
// cancelled while the model was still writing).
func (ss *Session) failUnfinished(ctx context.Context, tcs []model.ToolCall) {
	for _, tc := range tcs {
		ss.srv.notify(ctx, ss.id, views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: tc.ID, Status: views.Failed})
	}
}
