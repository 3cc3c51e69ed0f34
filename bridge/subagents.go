package bridge

import (
	"context"
	"slices"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/commands"
	"github.com/dsh-bridge/dsh-bridge/internal/folders"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
	"github.com/dsh-bridge/dsh-bridge/subagent"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// registerTask gives a session the task tool (package subagent); the
// session hears its children as their Observer.
func (ss *Session) registerTask() error {
	return ss.register(subagent.Tool(subagent.Deps{
		Registry: ss.srv.reg, Pipeline: ss.srv.pipe, Scope: ss.scope,
		Agents: ss.agents, Model: ss.childModel, System: ss.childPrompt,
		ResultText: ss.resultText, MaxRequests: ss.srv.cfg.MaxTurnRequests, MaxParallel: ss.srv.cfg.MaxParallel,
		Observer: ss,
	}))
}

// agents are the session's agents: the built-in ones and the custom
// ones, read again at each task call.
func (ss *Session) agents() []subagent.Agent {
	agents, problems := subagent.Load(commands.Source{
		UserDir: folders.Config(folders.Local()), Workspace: ss.ws,
		Trusted: ss.settings.Trusted, Check: ss.instructionsCheck,
	})
	for _, p := range problems {
		ss.srv.log.Warn("a custom agent was not loaded", "session", ss.id, "err", p)
	}
	return agents
}

// childModel is the model of a child of agent a: the agent's, else the
// session's, with the session's thought level unless the agent names one.
func (ss *Session) childModel(a subagent.Agent) subagent.Model {
	ss.mu.Lock()
	id, thinking := ss.model.id, ss.model.thinking
	ss.mu.Unlock()
	if a.Model != "" {
		id = a.Model
	}
	if a.Thinking != "" {
		thinking = a.Thinking
	}
	if !ss.srv.modelInfo(id).Thinking {
		thinking = model.ThinkingDefault
	}
	return subagent.Model{Client: ss.srv.cfg.Model, ID: id, Thinking: thinking}
}

// childBrief tells a child what it is.
const childBrief = "\n\n# Your task\nYou are a subagent: the main agent gave you one task, in the first message. " +
	"Work on it alone — you cannot ask anyone anything — with the tools above; the user sees your tool calls. " +
	"When you are done, answer with what the task asks for: your last message is all the main agent reads."

// childPrompt is the system prompt of a child in scope: the session's,
// with the child's tools, its brief and its agent's prompt.
func (ss *Session) childPrompt(scope *registry.Scope, a subagent.Agent) string {
	text := ss.promptFor(scope) + childBrief
	if a.Prompt != "" {
		text += "\n\n" + a.Prompt
	}
	reg := ss.srv.reg
	if sdk := codemode.PromptSections(reg.EffectivePresentation(scope), reg.Visible(scope)); sdk != "" {
		text += "\n\n" + sdk
	}
	return text
}

var _ subagent.Observer = (*Session)(nil)

// A client that advertises clientCapabilities.subagents sees each child
// as a session of its own (ACP v1 subagents, agentclientprotocol.com
// /protocol/v1/draft/subagents and the "Subagent sessions are
// stabilized" announcement of 2026-11-20, read 2026-12-08): after the
// announcing subagent_update on the parent, the child's tool calls, their
// updates, its plans, its answer (an agent_message_chunk) and its
// session/request_permission carry the child's sessionId, as ordinary
// session updates, not nested by _meta.dsh.parentToolCallId; the task
// card and its progress stay on the parent. Every other client gets the
// child's cards on the parent, nested under the task's.

// ChildStarted makes the child's scope the session's (approvals), its id
// cancellable, and announces it: a subagent_update for a client that
// takes them, the task card's progress for every client.
func (ss *Session) ChildStarted(c *subagent.Child) {
	s := ss.srv
	s.mu.Lock()
	s.byScope[c.Scope] = ss
	s.children[c.SessionID] = runningChild{c, ss}
	s.mu.Unlock()
	ss.mu.Lock()
	ss.subCalls[c.TaskCallID] = append(ss.subCalls[c.TaskCallID], store.Event{
		Kind: store.KindSubagent, ParentCallID: c.TaskCallID, SessionID: c.SessionID, Title: c.Title, Name: c.Agent.Name})
	if info := ss.calls[c.TaskCallID]; info != nil && ss.caps.Subagents != nil {
		info.child = c.SessionID
	}
	ss.mu.Unlock()
	if ss.caps.Subagents != nil {
		s.notify(context.Background(), ss.id, subagent.Announce(c))
	}
	ss.taskProgress(c)
}

// taskProgress shows the child's steps on its task's card.
func (ss *Session) taskProgress(c *subagent.Child) {
	ss.srv.notify(context.Background(), ss.id, views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: c.TaskCallID,
		Status: views.InProgress, Content: []views.ToolCallContent{views.TextItem(c.Progress())}})
}

// ChildCall announces a child's call as a card of its own, nested under
// the task's, its id reserved in the session's card ids.
func (ss *Session) ChildCall(c *subagent.Child, tc model.ToolCall) {
	args := registry.CallArgs([]byte(tc.Arguments))
	view := ss.srv.presenter.Preview(context.Background(), tc.Name, args, c.Scope)
	ss.cards.reserve(tc.ID)
	ss.mu.Lock()
	session, parent := ss.placeSub(c.TaskCallID)
	ss.calls[tc.ID] = &callInfo{name: tc.Name, args: args, view: view, parent: parent, session: session}
	ss.mu.Unlock()
	u := views.Call(ss.env, tc.ID, tc.Name, view, args, views.Pending)
	views.SetParent(&u, parent)
	ss.srv.notify(context.Background(), ss.cardSession(tc.ID), u)
	ss.taskProgress(c)
}

// ChildState reports a child's call that starts running.
func (ss *Session) ChildState(_ *subagent.Child, id string, st pipeline.State) {
	if st == pipeline.Running {
		ss.srv.notify(context.Background(), ss.cardSession(id), views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: id, Status: views.InProgress})
	}
}

// ChildCallDone finishes a child's card and keeps its durable record
// (and those of its run_code sub-calls) for the task's turn.
func (ss *Session) ChildCallDone(c *subagent.Child, tc model.ToolCall, r registry.Result) {
	ss.finish(context.Background(), tc, registry.ToolResult{Content: r.Content, IsError: r.IsError, Meta: r.Meta})
	nested := ss.takeSubCalls(tc.ID)
	ss.mu.Lock()
	ss.subCalls[c.TaskCallID] = append(ss.subCalls[c.TaskCallID], store.Event{
		Kind: store.KindCodeDispatch, ParentCallID: c.TaskCallID, CallID: tc.ID, Name: tc.Name, Arguments: tc.Arguments,
		Content: r.Content, IsError: r.IsError, Error: r.Error, Meta: r.Meta,
	})
	ss.subCalls[c.TaskCallID] = append(ss.subCalls[c.TaskCallID], nested...)
	ss.mu.Unlock()
}

// ChildUsage counts a child's request in the session's cost.
func (ss *Session) ChildUsage(_ *subagent.Child, modelID string, u model.Usage) {
	ss.accountChild(context.Background(), modelID, u)
}

// ChildEnded forgets the child's scope and id, records how it ended and
// tells a client that takes subagent_update.
func (ss *Session) ChildEnded(c *subagent.Child, o subagent.Outcome) {
	s := ss.srv
	s.mu.Lock()
	delete(s.byScope, c.Scope)
	delete(s.children, c.SessionID)
	s.mu.Unlock()
	answer := childAnswer{id: newMessageID(), text: o.Answer}
	ss.mu.Lock()
	evs := ss.subCalls[c.TaskCallID]
	if i := slices.IndexFunc(evs, func(e store.Event) bool { return e.Kind == store.KindSubagent && e.SessionID == c.SessionID }); i >= 0 {
		evs[i].StopReason = o.Stop
		evs[i].Text, evs[i].MessageID = answer.text, answer.id
	}
	ss.mu.Unlock()
	if ss.caps.Subagents != nil {
		ss.sayAsChild(context.Background(), c.SessionID, answer)
		s.notify(context.Background(), ss.id, subagent.Ended(c.SessionID, o))
	}
}

// childAnswer is a child's last text and its message id.
type childAnswer struct{ id, text string }

// sayAsChild sends a child's answer on the child's session.
func (ss *Session) sayAsChild(ctx context.Context, child string, a childAnswer) {
	if a.text != "" {
		ss.srv.notify(ctx, child, contentChunk{SessionUpdate: "agent_message_chunk", Content: card.Text(a.text), MessageID: a.id})
	}
}

// replayChild shows a logged child to a client that takes subagent_update:
// its whole state at once, ended; the child's calls that follow in the
// log go on its session, as they did live, and its answer (returned, for
// the replay to send before the task's result) too.
func (ss *Session) replayChild(ctx context.Context, e store.Event) (childAnswer, bool) {
	if ss.caps.Subagents == nil {
		return childAnswer{}, false
	}
	u, ok := subagent.Replayed(e.SessionID, e.Title, e.Name, e.StopReason)
	if !ok {
		return childAnswer{}, false
	}
	ss.srv.notify(ctx, ss.id, u)
	ss.mu.Lock()
	if info := ss.calls[e.ParentCallID]; info != nil {
		info.child = u.SessionID
	}
	ss.mu.Unlock()
	return childAnswer{id: e.MessageID, text: e.Text}, true
}

// runningChild is a running subagent and the session it is a child of.
type runningChild struct {
	child  *subagent.Child
	parent *Session
}

// cancelChild cancels the child session id alone, if it is running and
// its parent session is open on this connection. A Server is one
// connection's: another connection's children are not in its map, and a
// child whose parent was closed (or deleted) is left to the close, which
// ends the parent's turn and every child with it.
func (s *Server) cancelChild(id string) bool {
	s.mu.Lock()
	rc, ok := s.children[id]
	ok = ok && s.sessions[rc.parent.id] == rc.parent
	s.mu.Unlock()
	if ok {
		rc.child.Cancel()
	}
	return ok
}

// accountChild counts a child's request in the session's cost: logged
// (so that a load sums it), and a usage_update with the new total. The
// context shown stays the parent's last request's: the child's own
// conversation is not the session's.
func (ss *Session) accountChild(ctx context.Context, modelID string, u model.Usage) {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return
	}
	s := ss.srv
	cost, priced := s.modelInfo(modelID).Cost(u, s.now())
	cost = roundUSD(cost)
	ss.mu.Lock()
	ss.turnUsage.add(u) // the task's turn's usage includes its children's
	if priced {
		ss.model.cost += cost
		ss.model.priced = true
	}
	total, used, window := roundUSD(ss.model.cost), ss.model.lastPrompt, s.modelInfo(ss.model.id).Window
	ss.mu.Unlock()
	rec := &store.Usage{Model: modelID, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CacheHit: u.CacheHit, CacheMiss: u.CacheMiss}
	if priced {
		rec.CostUSD = &cost
	}
	ss.record(store.Event{Kind: store.KindUsage, Usage: rec})
	if priced {
		s.notify(ctx, ss.id, usageUpdate{SessionUpdate: "usage_update", Used: used, Size: window, Cost: &costInfo{Amount: total, Currency: "USD"}})
	}
}
