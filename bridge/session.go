package bridge

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/checkpoint"
	"github.com/dsh-bridge/dsh-bridge/commands"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/views"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Mode ids, as editors know them from other agents.
const (
	ModeDefault = "default"
	ModeAccept  = "acceptEdits"
	ModePlan    = "plan"
	ModeBypass  = "bypassPermissions"
)

var modes = []sessionMode{
	{ID: ModeDefault, Name: "Default", Description: "Reads and searches inside the workspace run; edits, commands, fetches and anything outside the workspace ask first."},
	{ID: ModeAccept, Name: "Accept edits", Description: "Edits inside the workspace also run without asking."},
	{ID: ModePlan, Name: "Plan", Description: "Read-only: edits and commands are refused."},
	{ID: ModeBypass, Name: "Bypass permissions", Description: "Nothing asks; refusals by rules still apply."},
}

// Session is one ACP session: a workspace, an agent scope with the built-in
// tools, a conversation, a mode and remembered permission decisions.
type Session struct {
	// ready is closed once the session can take requests: once its
	// answer and its notices are written (for a loaded one, after the
	// history and log are restored), so that the notices come before
	// anything a prompt sends.
	ready     chan struct{}
	id        string
	srv       *Server
	ws        *workspace.Workspace
	scope     *registry.Scope
	env       views.Env
	caps      clientCapabilities
	disposers []func()
	policy    *permission.Policy
	settings  permission.Settings
	sandbox   *tools.Sandbox // nil: commands run unsandboxed
	repos     *newRepos      // roots a command may make a repository in (nil: none watched)

	log *store.Log // nil without a store
	// ckpt records each turn's file changes (a nil Recorder records
	// nothing: no store).
	ckpt             *checkpoint.Recorder
	blobs            *checkpoint.Store
	settingsProblems []string
	logFailed        atomic.Bool
	turns            sync.WaitGroup // the running turn
	tokens           sync.WaitGroup // syntax-token updates still being computed

	// history is the conversation, under its own lock: read by every
	// session's turn end (Server.historyBytes) while a request over it
	// is being written.
	history model.History

	mu   sync.Mutex
	mode string
	// messageIDs are the ids every message of the session has had, its
	// log's included (claimMessageID).
	messageIDs map[string]bool
	model      modelState
	mcp        mcpNotices
	cancel     context.CancelFunc // the running turn's; nil when idle
	// arrived holds a cancel for every session/prompt that has arrived
	// and not yet been answered, so that a session/cancel reaches a
	// prompt whose handler has not started its turn yet.
	arrived map[*context.CancelFunc]struct{}
	// agentMsg is the messageId of the assistant message being streamed.
	agentMsg string
	calls    map[string]*callInfo
	// cards gives the model's calls their editors' ids (cardids.go).
	cards cardIDs

	// Code Mode: the tools_mode choice and its presentAs disposer, and the
	// sub-calls of run_code calls, logged with their call's result.
	toolsMode    string
	presentation func()
	subCalls     map[string][]store.Event

	guide *guidance // the system prompt's data and the instructions files

	title     string    // under mu
	turnUsage turnUsage // the running turn's usage so far; under mu

	commands []commands.Command // the slash commands last advertised (under mu)
}

// callInfo is what the bridge remembers of an announced tool call.
type callInfo struct {
	name       string
	args       jsonv.Value
	view       card.CallView
	terminalID string // the editor terminal the call's command ran in
	parent     string // the run_code call a sub-call belongs to
	// session is the session the card's updates go on: a child's, for a
	// child's call shown to a subagents client; "" is the session's own.
	session string
	// child is, on a task call whose child a subagents client sees as a
	// session, that child's id: its calls' cards go on it.
	child string
}

// cardSession is the session id the card id's updates and permission
// requests go on.
func (ss *Session) cardSession(id string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if info := ss.calls[id]; info != nil && info.session != "" {
		return info.session
	}
	return ss.id
}

// placeSub is where a sub-call of the call outer lives: the session its
// card goes on and the card it nests under ("" none). A sub-call of a
// task whose child is a session of its own is a top-level card of that
// session; any other nests under its outer call, on the outer's session.
// Called with ss.mu held.
func (ss *Session) placeSub(outer string) (session, parent string) {
	info := ss.calls[outer]
	switch {
	case info == nil:
		return "", outer
	case info.child != "":
		return info.child, ""
	}
	return info.session, outer
}

func (ss *Session) currentMode() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.mode
}

func (ss *Session) setMode(id string) error {
	for _, m := range modes {
		if m.ID == id {
			ss.mu.Lock()
			ss.mode = id
			ss.mu.Unlock()
			return nil
		}
	}
	return acp.InvalidParams("unknown mode %q", id)
}

func (ss *Session) modeState() modeState {
	return modeState{CurrentModeID: ss.currentMode(), AvailableModes: modes}
}

// announceMode tells the client the mode changed (both the mode update and
// the config option update, for clients that show either).
func (ss *Session) announceMode(ctx context.Context) {
	ss.srv.notify(ctx, ss.id, currentModeUpdate{SessionUpdate: "current_mode_update", CurrentModeID: ss.currentMode()})
	ss.srv.notify(ctx, ss.id, configOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: ss.configOptions()})
}

// cancelTurn cancels the running turn, if any: the model stream, every
// running tool and every pending permission request; and every prompt
// that has arrived and not been answered, started or not.
func (ss *Session) cancelTurn() {
	ss.mu.Lock()
	cancels := make([]context.CancelFunc, 0, 1+len(ss.arrived))
	if ss.cancel != nil {
		cancels = append(cancels, ss.cancel)
	}
	for c := range ss.arrived {
		cancels = append(cancels, *c)
	}
	ss.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
}

// arrive records, on the read loop, a session/prompt that has just
// arrived: a session/cancel read after it cancels ctx even when the
// prompt's handler has not reached its turn. answered forgets it.
func (ss *Session) arrive(ctx context.Context) (_ context.Context, answered func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := &cancel
	ss.mu.Lock()
	if ss.arrived == nil {
		ss.arrived = map[*context.CancelFunc]struct{}{}
	}
	ss.arrived[key] = struct{}{}
	ss.mu.Unlock()
	return ctx, func() {
		ss.mu.Lock()
		delete(ss.arrived, key)
		ss.mu.Unlock()
		cancel()
	}
}

// waitIdle waits for the running turn, if any, to finish.
func (ss *Session) waitIdle() { ss.turns.Wait() }

// close frees the session: its tools (and background jobs), policies and
// log.
func (ss *Session) close() {
	for i := len(ss.disposers) - 1; i >= 0; i-- {
		ss.disposers[i]()
	}
	ss.disposers = nil
	// Whatever is still registered on the session's scope (tools, its
	// presentation, pipeline listeners) goes with it.
	ss.scope.Dispose()
	ss.ckpt.Close()
	if ss.log != nil {
		ss.log.Close()
	}
}
