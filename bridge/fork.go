package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dsh-bridge/dsh-bridge/store"
)

// forkParams is the unstable ForkSessionRequest (agent-client-protocol
// schema, docs.rs agent-client-protocol 3.4.0 ForkSessionRequest and
// ForkSessionResponse, read 2026-12-07): sessionId, cwd,
// additionalDirectories (when non-empty, the fork's whole list),
// mcpServers, systemPrompt; the answer is {sessionId, modes?,
// configOptions?}, advertised by sessionCapabilities.fork: {}.
type forkParams struct {
	SessionID             string             `json:"sessionId"`
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
	if _, _, running := completeTurns(events); running {
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
