package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// record appends events to the session log, if there is one, in one
// write. A failing log is reported once and never stops the conversation.
func (ss *Session) record(events ...store.Event) {
	if ss.log == nil || len(events) == 0 {
		return
	}
	if err := ss.log.Append(events...); err != nil && ss.logFailed.CompareAndSwap(false, true) {
		ss.srv.log.Error("session log append failed", "session", ss.id, "err", err)
	}
}

func (ss *Session) syncLog() {
	if ss.log != nil {
		_ = ss.log.Sync()
	}
}

// recordTurn logs one model response and the results of its tool calls;
// cards are its calls with their card ids (cardIDs).
func (ss *Session) recordTurn(resp model.Response, cards []model.ToolCall, results []registry.Result) {
	if resp.Text == "" && resp.Reasoning == "" && len(resp.ToolCalls) == 0 {
		return
	}
	ss.mu.Lock()
	msgID := ss.agentMsg
	ss.mu.Unlock()
	e := store.Event{Kind: store.KindAssistant, Text: resp.Text, Reasoning: resp.Reasoning, MessageID: msgID}
	if results != nil {
		for i, tc := range resp.ToolCalls {
			logged := store.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
			if cards[i].ID != tc.ID {
				logged.CardID = cards[i].ID
			}
			e.ToolCalls = append(e.ToolCalls, logged)
		}
	}
	// The whole turn in one write.
	events := []store.Event{e}
	var contexts []store.Event
	for i, r := range results {
		events = append(events, ss.takeSubCalls(cards[i].ID)...)
		events = append(events, store.Event{Kind: store.KindToolResult, CallID: cards[i].ID, Content: r.Content, IsError: r.IsError, Error: r.Error, Meta: r.Meta})
		for _, c := range r.AdditionalContexts {
			contexts = append(contexts, store.Event{Kind: store.KindContext, Text: blocksText(c.Content)})
		}
	}
	ss.record(append(events, contexts...)...)
}

// history rebuilds the model conversation from complete turns, exactly as
// the live session held it: capped results, compactions applied where
// they happened.
func (ss *Session) rebuildHistory(turns []replayTurn) []model.Message {
	var out []model.Message
	modelID := map[string]string{} // a result's card id → its call's model id
	for _, t := range turns {
		for _, e := range t.events {
			switch e.Kind {
			case store.KindUser, store.KindContext:
				out = append(out, model.Message{Role: "user", Content: e.Text})
			case store.KindClear:
				out = nil
			case store.KindCompaction:
				if c := e.Compaction; c != nil {
					out = model.ApplyShrink(out, c.Shrunk)
					if c.Through > 0 && c.Through <= len(out) {
						out = model.Summarised(c.Summary, out[c.Through:])
					}
				}
			case store.KindAssistant:
				if e.Text == "" && len(e.ToolCalls) == 0 {
					continue // reasoning alone never reached the history
				}
				m := model.Message{Role: "assistant", Content: e.Text, Reasoning: e.Reasoning}
				for _, tc := range e.ToolCalls {
					m.ToolCalls = append(m.ToolCalls, model.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
					modelID[tc.Card()] = tc.ID
				}
				out = append(out, m)
			case store.KindToolResult:
				id := e.CallID
				if m, ok := modelID[id]; ok {
					id = m
				}
				out = append(out, model.Message{Role: "tool", ToolCallID: id, Content: ss.resultText(registry.Result{Content: e.Content, IsError: e.IsError, Error: e.Error})})
			}
		}
	}
	return out
}

// replay sends a loaded conversation as session/updates, recomputing every
// card through the presenters from the durable fields.
func (ss *Session) replay(ctx context.Context, turns []replayTurn) {
	s := ss.srv
	for _, t := range turns {
		args := map[string]store.ToolCall{}
		answers := map[string]childAnswer{} // a task's child's answer, by the task's card id
		children := map[string]string{}     // the task's child session, by the task's card id
		for _, e := range t.events {
			switch e.Kind {
			case store.KindUser:
				s.notify(ctx, ss.id, contentChunk{SessionUpdate: "user_message_chunk", Content: card.Text(e.Text), MessageID: e.MessageID})
			case store.KindAssistant:
				if e.Reasoning != "" {
					s.notify(ctx, ss.id, contentChunk{SessionUpdate: "agent_thought_chunk", Content: card.Text(e.Reasoning), MessageID: e.MessageID})
				}
				if e.Text != "" {
					s.notify(ctx, ss.id, contentChunk{SessionUpdate: "agent_message_chunk", Content: card.Text(e.Text), MessageID: e.MessageID})
				}
				for _, tc := range e.ToolCalls {
					args[tc.Card()] = tc
					ss.announce(ctx, model.ToolCall{ID: tc.Card(), Name: tc.Name, Arguments: tc.Arguments})
				}
			case store.KindCompaction:
				if c := e.Compaction; c != nil {
					ss.announceCompaction(ctx, compactionUpdate{CompactionID: c.ID, Status: "completed",
						Summary: []card.Content{card.Text(compactionText(len(c.Shrunk), c.Through, c.Summary))}})
				}
			case store.KindCodeDispatch:
				ss.replaySubCall(ctx, e)
			case store.KindSubagent:
				if a, ok := ss.replayChild(ctx, e); ok {
					answers[e.ParentCallID], children[e.ParentCallID] = a, e.SessionID
				}
			case store.KindClear:
				ss.say(ctx, clearedText)
			case store.KindToolResult:
				if a, ok := answers[e.CallID]; ok {
					ss.sayAsChild(ctx, children[e.CallID], a)
				}
				tc := args[e.CallID]
				ss.finish(ctx, model.ToolCall{ID: e.CallID, Name: tc.Name, Arguments: tc.Arguments}, registry.ToolResult{Content: e.Content, IsError: e.IsError, Meta: e.Meta})
			}
		}
	}
}

type loadParams struct {
	SessionID             string             `json:"sessionId"`
	Cwd                   string             `json:"cwd"`
	MCPServers            []json.RawMessage  `json:"mcpServers"`
	AdditionalDirectories []string           `json:"additionalDirectories"`
	SystemPrompt          *systemPromptParam `json:"systemPrompt"`
}

type loadResult struct {
	Modes         modeState      `json:"modes"`
	ConfigOptions []configOption `json:"configOptions"`
}

// loadSession serves session/load (replay true) and session/resume (no
// replay: the client keeps its own transcript).
func (s *Server) loadSession(ctx context.Context, p loadParams, method string) (loadResult, error) {
	replay := method == "session/load"
	logs := s.store()
	if logs == nil {
		return loadResult{}, fmt.Errorf("%w: %q (no session store)", ErrSessionNotFound, p.SessionID)
	}
	if s.session(p.SessionID) != nil {
		return loadResult{}, acp.InvalidParams("session/load: session %q is already open", p.SessionID)
	}
	if err := s.requireKey(); err != nil {
		return loadResult{}, err
	}
	events, rep, err := logs.Load(p.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return loadResult{}, fmt.Errorf("%w: %q", ErrSessionNotFound, p.SessionID)
	}
	if err != nil {
		return loadResult{}, fmt.Errorf("loading session %q: %w", p.SessionID, err)
	}
	if len(rep.Skipped) > 0 {
		s.log.Warn("skipped unreadable session log lines", "session", p.SessionID, "lines", rep.Skipped, "torn", rep.Torn)
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = events[0].Cwd
	}
	cwd, dirs, err := checkDirs(method, cwd, p.AdditionalDirectories)
	if err != nil {
		return loadResult{}, err
	}
	sp, spMode, err := clientPrompt(method, p.SystemPrompt)
	if err != nil {
		return loadResult{}, err
	}
	return s.restore(ctx, restoreSpec{id: p.SessionID, events: events, cwd: cwd, dirs: dirs, prompt: sp, promptMode: spMode, mcp: p.MCPServers, replay: replay})
}

// restoreSpec is what restore rebuilds a session from.
type restoreSpec struct {
	id                 string
	events             []store.Event // the log, header first
	cwd                string
	dirs               []string
	prompt, promptMode string
	mcp                []json.RawMessage
	replay             bool       // send the turns as session/updates (session/load)
	log                *store.Log // the session's log, already open (nil: reopen id's)
}

// restore opens a session from its log's events: history, mode, config,
// cost and title as the log leaves them.
func (s *Server) restore(ctx context.Context, r restoreSpec) (loadResult, error) {
	logs := s.store()
	turns, st, cutOff := completeTurns(r.events)
	ss, err := s.openSession(r.id, r.cwd, r.dirs)
	if err != nil {
		if r.log != nil {
			r.log.Close()
		}
		return loadResult{}, err
	}
	for _, e := range r.events {
		ss.noteMessageIDs(e.MessageID) // a prompt reusing one gets a new id
	}
	ss.guide.setClient(r.prompt, r.promptMode)
	ss.cards.seen(r.events) // every card the log names keeps its id
	if st.mode != "" {
		_ = ss.setMode(st.mode)
	}
	ss.initModel(ctx)
	ss.log = r.log // closed with the session
	if err := ss.startMCP(ctx, r.mcp); err != nil {
		s.dropSession(ss)
		return loadResult{}, err
	}
	ss.restoreConfig(st.config)
	ss.model.cost, ss.model.priced = st.cost, st.priced
	ss.model.lastPrompt, ss.model.lastBytes = st.lastPrompt, st.lastBytes
	ss.title = st.title
	ss.history.Replace(ss.rebuildHistory(turns))
	if st.title != "" {
		ss.announceTitle(ctx, st.title, false) // for load and resume: the client lists it
	}
	if r.replay {
		ss.replay(ctx, turns)
		ss.replayUsage(ctx)
		ss.tokens.Wait() // the whole replay goes out before the answer
		ss.pruneCalls()
	}
	if ss.log == nil {
		if ss.log, err = logs.Reopen(r.id); err != nil {
			s.log.Error("reopening the session log", "session", r.id, "err", err)
		}
	}
	if cutOff {
		// The last turn was cut off (a crash): void it, so that it never
		// merges with the turns that follow.
		ss.record(store.Event{Kind: store.KindAbandoned})
		ss.syncLog()
	}
	// Requests that came in behind the load run once its notices are out.
	acp.AfterReply(ctx, func() { ss.sendNotices(ctx); close(ss.ready) })
	return loadResult{Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

type listParams struct {
	Cwd    string `json:"cwd"`
	Cursor string `json:"cursor"`
}

type sessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

type listResult struct {
	Sessions   []sessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// listPage is how many sessions one session/list answer carries.
const listPage = 50

func (s *Server) listSessions(_ context.Context, p listParams) (listResult, error) {
	res := listResult{Sessions: []sessionInfo{}}
	st := s.store()
	if st == nil {
		return res, nil
	}
	all, err := st.List()
	if err != nil {
		return listResult{}, err
	}
	var matching []store.Info
	for _, in := range all {
		if p.Cwd == "" || in.Cwd == p.Cwd {
			matching = append(matching, in)
		}
	}
	start := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(p.Cursor, "offset:"))
		if err != nil || n < 0 || n > len(matching) {
			return listResult{}, acp.InvalidParams("session/list: invalid cursor %q", p.Cursor)
		}
		start = n
	}
	end := min(len(matching), start+listPage)
	for _, in := range matching[start:end] {
		res.Sessions = append(res.Sessions, sessionInfo{SessionID: in.ID, Cwd: in.Cwd, Title: in.Title, UpdatedAt: in.UpdatedAt.Format("2006-01-02T15:04:05Z07:00")})
	}
	if end < len(matching) {
		res.NextCursor = "offset:" + strconv.Itoa(end)
	}
	return res, nil
}

func (s *Server) closeSession(ctx context.Context, p sessionParams) (struct{}, error) {
	ss, err := s.requireSession(ctx, p.SessionID)
	if err != nil {
		return struct{}{}, err
	}
	s.endSession(ss)
	return struct{}{}, nil
}

// endSession forgets a live session, cancels its turn, waits for it and
// frees the session.
func (s *Server) endSession(ss *Session) {
	s.mu.Lock()
	delete(s.sessions, ss.id)
	delete(s.byScope, ss.scope)
	s.mu.Unlock()
	ss.cancelTurn()
	ss.waitIdle()
	ss.close()
}

// deleteSession serves session/delete: a live session is ended first (its
// turn cancelled and awaited, its tools disposed, which deletes its spill
// files), then its log and title file are removed. An id that names no
// stored session is resource-not-found; one that cannot be a session id
// (a path, "..") is invalid params and removes nothing.
func (s *Server) deleteSession(ctx context.Context, p sessionParams) (struct{}, error) {
	st := s.store()
	if st == nil {
		return struct{}{}, fmt.Errorf("%w: %q (no session store)", ErrSessionNotFound, p.SessionID)
	}
	if _, err := st.Path(p.SessionID); err != nil {
		return struct{}{}, acp.InvalidParams("session/delete: %q is not a session id", p.SessionID)
	}
	if ss, err := s.requireSession(ctx, p.SessionID); err == nil {
		s.endSession(ss)
	} else if ctx.Err() != nil {
		return struct{}{}, ctx.Err()
	}
	if err := st.Delete(p.SessionID); errors.Is(err, store.ErrNotFound) {
		return struct{}{}, fmt.Errorf("%w: %q", ErrSessionNotFound, p.SessionID)
	} else if err != nil {
		return struct{}{}, fmt.Errorf("deleting session %q: %w", p.SessionID, err)
	}
	return struct{}{}, nil
}

// replayUsage sends a loaded session's usage as the live session last
// showed it: the last conversation request's prompt tokens, the window,
// the cost so far. A log without such a request sends nothing.
func (ss *Session) replayUsage(ctx context.Context) {
	ss.mu.Lock()
	used, cost, priced, id := ss.model.lastPrompt, ss.model.cost, ss.model.priced, ss.model.id
	ss.mu.Unlock()
	if used == 0 {
		return
	}
	upd := usageUpdate{SessionUpdate: "usage_update", Used: used, Size: ss.srv.modelInfo(id).Window}
	if priced {
		upd.Cost = &costInfo{Amount: roundUSD(cost), Currency: "USD"}
	}
	ss.srv.notify(ctx, ss.id, upd)
}
