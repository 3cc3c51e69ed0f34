package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// forkParams is the unstable ForkSessionRequest (agent-client-protocol
// schema, docs.rs agent-client-protocol 3.4.0 ForkSessionRequest and
// ForkSessionResponse, read 2026-12-07): sessionId, cwd,
// additionalDirectories (when non-empty, the fork's whole list),
// mcpServers, systemPrompt; the answer is {sessionId, modes?,
// configOptions?}, advertised by sessionCapabilities.fork: {}.
// MessageID forks at a message (forkAtMessage), advertised by
// sessionCapabilities.fork.atMessageId.
type forkParams struct {
	SessionID             string             `json:"sessionId"`
	MessageID             string             `json:"messageId"`
	Cwd                   string             `json:"cwd"`
	AdditionalDirectories []string           `json:"additionalDirectories"`
	MCPServers            []json.RawMessage  `json:"mcpServers"`
	SystemPrompt          *systemPromptParam `json:"systemPrompt"`
}

// forkSession serves session/fork: a new session whose log starts as a
// copy of the parent's complete turns (its header names the parent), and
// whose history is rebuilt from them as a load rebuilds it, so that its
// first request starts with the bytes the parent's next one would. The
// parent, open or not, is only read.
func (s *Server) forkSession(ctx context.Context, p forkParams) (newSessionResult, error) {
	logs := s.store()
	if logs == nil {
		return newSessionResult{}, fmt.Errorf("%w: %q (no session store)", ErrSessionNotFound, p.SessionID)
	}
	if s.session(p.SessionID) != nil {
		parent, err := s.requireSession(ctx, p.SessionID) // restored first
		if err != nil {
			return newSessionResult{}, err
		}
		parent.ckpt.Wait() // its last turn's changes are in its log
	}
	if err := s.requireKey(); err != nil {
		return newSessionResult{}, err
	}
	events, _, err := logs.Load(p.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return newSessionResult{}, fmt.Errorf("%w: %q", ErrSessionNotFound, p.SessionID)
	}
	if err != nil {
		return newSessionResult{}, fmt.Errorf("forking session %q: %w", p.SessionID, err)
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = events[0].Cwd
	}
	// Omitted or empty: no additional roots (the schema's words).
	cwd, dirs, err := checkDirs("session/fork", cwd, p.AdditionalDirectories)
	if err != nil {
		return newSessionResult{}, err
	}
	sp, spMode, err := clientPrompt("session/fork", p.SystemPrompt)
	if err != nil {
		return newSessionResult{}, err
	}
	copied := events[1:]
	if p.MessageID != "" {
		if copied, err = forkAtMessage(events, p.MessageID); err != nil {
			return newSessionResult{}, err
		}
	} else if _, _, running := completeTurns(events); running {
		// A turn still running (or cut off) stays the parent's.
		copied = append(copied[:len(copied):len(copied)], store.Event{Kind: store.KindAbandoned})
	}
	id := newSessionID()
	log, err := logs.Create(id, store.Event{Cwd: cwd, AdditionalDirectories: dirs, ForkOf: p.SessionID})
	if err != nil {
		return newSessionResult{}, fmt.Errorf("creating the fork's log: %w", err)
	}
	if err := log.Append(copied...); err != nil {
		log.Close()
		return newSessionResult{}, fmt.Errorf("copying the parent's log: %w", err)
	}
	if err := log.Sync(); err != nil {
		s.log.Warn("syncing the fork's log", "session", id, "err", err)
	}
	all := append([]store.Event{events[0]}, copied...)
	res, err := s.restore(ctx, restoreSpec{id: id, events: all, cwd: cwd, dirs: dirs, prompt: sp, promptMode: spMode, mcp: p.MCPServers, log: log})
	if err != nil {
		return newSessionResult{}, err
	}
	return newSessionResult{SessionID: id, Modes: res.Modes, ConfigOptions: res.ConfigOptions}, nil
}

// forkAtMessage is what a fork at message id copies of a log (events,
// header first): every event up to and including that message, then a
// turn end. The draft RFD "Forking sessions at a specific message"
// (agent-client-protocol PR #629, docs/rfds/session-fork-at-message.mdx
// at 54fe2717, 2026-03-03, read 2026-12-08) adds an optional messageId to
// session/fork, advertised by fork: {atMessageId: true}; its semantics
// are inclusive — the fork holds every message up to and including that
// one — and the agent starts no new answer. (A later revision of that
// PR names fork points by a forkId instead, and PR #941, closed, forked
// before the message; we follow the messageId draft.) A user message's
// fork ends with it, unanswered: its next prompt follows it. An
// assistant message's fork keeps its calls' results (so the history
// stays well formed) and ends there. The message must be a user or
// assistant message of the session's current history (not rewound away,
// not a child's answer logged with its task): any other id is invalid
// params. The cut is at that message as the current history holds it, so
// an id a log holds twice (a rewound message's, reused by a later prompt
// before ids were made unique) names the live one. A fork is of history
// only: the workspace's files are not touched, whatever later turns of
// the parent changed; the turns' checkpoints come with them, as a whole
// fork's do.
func forkAtMessage(events []store.Event, id string) ([]store.Event, error) {
	at, ok := liveMessage(events, id)
	if !ok {
		return nil, acp.InvalidParams("session/fork: no user or agent message %q in this session's history", id)
	}
	cut := at + 1
	if events[at].Kind == store.KindAssistant {
		for cut < len(events) && belongsToAnswer(events[cut].Kind) {
			cut++
		}
	}
	kept := map[string]bool{} // the copied turns' user message ids
	out := make([]store.Event, 0, cut)
	for _, e := range events[1:cut] {
		if e.Kind == store.KindUser {
			kept[e.MessageID] = true
		}
		out = append(out, e)
	}
	for _, e := range events[cut:] { // a turn's changes may be logged after it
		if e.Kind == store.KindCheckpoint && kept[e.MessageID] {
			out = append(out, e)
		}
	}
	return append(out, store.Event{Kind: store.KindTurnEnd, StopReason: stopEndTurn}), nil
}

// liveMessage is the index in events (a log, header first) of the user
// or assistant message id of the current history: of its complete turns,
// rewound ones left out.
func liveMessage(events []store.Event, id string) (int, bool) {
	if id == "" {
		return -1, false
	}
	turns, _, _ := completeTurns(events)
	for _, t := range turns {
		for i, e := range t.events {
			if e.MessageID == id && (e.Kind == store.KindUser || e.Kind == store.KindAssistant) {
				return t.at[i], true
			}
		}
	}
	return -1, false
}

// belongsToAnswer reports whether an event of kind, right after an
// assistant message, is part of it: its calls' results and what they
// logged with them.
func belongsToAnswer(kind string) bool {
	switch kind {
	case store.KindToolResult, store.KindCodeDispatch, store.KindSubagent, store.KindContext:
		return true
	}
	return false
}
