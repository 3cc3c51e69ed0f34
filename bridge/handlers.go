package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/checkpoint"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/store"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/views"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// ProtocolVersion is the ACP version the bridge speaks.
const ProtocolVersion = 1

func (s *Server) initialize(ctx context.Context, p initializeParams) (initializeResult, error) {
	if p.ProtocolVersion == nil {
		return initializeResult{}, acp.InvalidParams("initialize: protocolVersion is required")
	}
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.mu.Unlock()
	return initializeResult{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: map[string]any{
			"loadSession":         s.cfg.StateDir != "",
			"promptCapabilities":  map[string]any{"image": false, "audio": false, "embeddedContext": true},
			"mcpCapabilities":     map[string]any{"http": true, "sse": true},
			"sessionCapabilities": s.sessionCapabilities(),
			"_meta":               s.agentMeta(),
		},
		AuthMethods: authMethods(p.ClientCapabilities, s.loginCommand()),
		AgentInfo:   implementation{Name: "dsh-bridge", Title: "dsh-bridge", Version: s.cfg.Version},
	}, nil
}

func newSessionID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "sess_" + hex.EncodeToString(b)
}

func (s *Server) newSession(ctx context.Context, p newSessionParams) (newSessionResult, error) {
	cwd, dirs, err := checkDirs("session/new", p.Cwd, p.AdditionalDirectories)
	if err != nil {
		return newSessionResult{}, err
	}
	sp, spMode, err := clientPrompt("session/new", p.SystemPrompt)
	if err != nil {
		return newSessionResult{}, err
	}
	if err := s.requireKey(); err != nil {
		return newSessionResult{}, err
	}
	ss, err := s.openSession(newSessionID(), cwd, dirs)
	if err != nil {
		return newSessionResult{}, err
	}
	ss.guide.setClient(sp, spMode)
	ss.initModel(ctx)
	if err := ss.startMCP(ctx, p.MCPServers); err != nil {
		s.dropSession(ss)
		return newSessionResult{}, err
	}
	if st := s.store(); st != nil {
		if ss.log, err = st.Create(ss.id, store.Event{Cwd: ss.ws.Cwd(), AdditionalDirectories: dirs}); err != nil {
			s.log.Error("creating the session log; this session will not be resumable", "session", ss.id, "err", err)
		}
	}

	// The session takes requests once its notices are out, so that they
	// come before anything a prompt sends.
	acp.AfterReply(ctx, func() { ss.sendNotices(ctx); close(ss.ready) })
	return newSessionResult{SessionID: ss.id, Modes: ss.modeState(), ConfigOptions: ss.configOptions()}, nil
}

// sendNotices tells the person what the session could not honour or
// should know: malformed settings files (ignored whole), trust, the
// sandbox, and the MCP servers' news.
func (ss *Session) sendNotices(ctx context.Context) {
	for _, p := range ss.settingsProblems {
		ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: "warning",
			Title: "A settings file was ignored", Description: p + " — none of its permission rules apply until it is fixed."})
	}
	if t := trustNotice(ss.settings); t != "" {
		ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: "warning",
			Title: "This workspace's allow rules are not trusted", Description: t})
	}
	title, desc := sandboxNotice(ss.settings, ss.sandbox, ss.caps.Terminal)
	severity := "info"
	if ss.sandbox == nil {
		severity = "warning"
	}
	ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: severity, Title: title, Description: desc})
	if ss.rootsWritable() {
		if dirs := safepath.Writable(os.Getenv("PATH"), ss.ws.Roots()); len(dirs) > 0 {
			ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: "warning",
				Title:       "Your PATH has folders the agent's commands may write",
				Description: strings.Join(dirs, ", ") + ": a program a sandboxed command puts there (a git, an ls) runs as you, outside the sandbox, when a shell with this PATH runs its name. dsh-bridge itself takes no program from them."})
		}
	}
	ss.instructionsNotice(ctx)
	ss.flushMCPNotices(ctx)
	ss.advertiseCommands(ctx)
}

// dropSession forgets a session whose opening failed and frees it.
func (s *Server) dropSession(ss *Session) {
	s.mu.Lock()
	delete(s.sessions, ss.id)
	delete(s.byScope, ss.scope)
	s.mu.Unlock()
	ss.close()
}

// openSession builds a live session: workspace, scope, tools, policies.
func (s *Server) openSession(id, cwd string, dirs []string) (*Session, error) {
	s.sweep.Do(func() {
		if n := tools.SweepSpills(); n > 0 {
			s.log.Info("removed spill files left by processes that are gone", "count", n)
		}
	})
	ws, err := workspace.New(cwd, dirs...)
	if err != nil {
		return nil, acp.InvalidParams("session: %v", err)
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	ss := &Session{
		ready:    make(chan struct{}),
		id:       id,
		srv:      s,
		ws:       ws,
		mode:     ModeDefault,
		calls:    map[string]*callInfo{},
		subCalls: map[string][]store.Event{},
		env:      views.Env{Cwd: ws.Cwd(), TerminalOutput: caps.Meta["terminal_output"] == true, Cards: caps.rendersCards(), PackedTokens: caps.packsTokens(), Tokenizer: s.tokenizerFor(caps)},
		caps:     caps,
	}
	ss.scope = s.reg.NewScope(ss.id, nil)
	ss.settings = permission.LoadSettings(ws.Cwd())
	ss.settings.StateDir = s.cfg.StateDir // guarded as the configuration is
	// The values it scrubs are never sent on, whatever reads them.
	secrets.RememberEnv(os.Environ(), ss.settings.ScrubEnv)
	// Programs run outside the sandbox are not looked up where commands write.
	safepath.Distrust(ws.Roots()...)
	ss.settings.Programs = ownPrograms()
	ss.settings.Unconfined = runtime.GOOS == "windows" // no kernel sandbox there: the policy asks more
	ss.settings.Shell = tools.Shell().Kind
	ss.settingsProblems = ss.settings.Problems
	ss.policy = permission.New(ws, ss.settings, func() permission.Mode { return permission.Mode(ss.currentMode()) })
	ss.sandbox = sandboxFor(ss.settings, ws, ss.policy.DeniedTrees(), ss.policy.Kept)
	if ss.sandbox != nil && s.cfg.Self != "" {
		ss.sandbox.Helper = s.cfg.Self
	}
	if ss.sandbox != nil {
		// What the sandbox keeps must exist before a command can make it.
		made, err := ss.policy.MakeKept(ss.sandbox.Profile.Writable(), ss.settings.Trusted)
		s.log.Debug("folders made for the sandbox to keep", "made", made, "err", err)
	}
	if ss.rootsWritable() {
		ss.repos = watchNewRepos(ws.Roots())
	}
	if st := s.store(); st != nil {
		if blobs, err := checkpoint.OpenStore(filepath.Join(st.Dir(), "checkpoints")); err != nil {
			s.log.Error("the checkpoint store is unavailable; turns will not be undoable", "err", err)
		} else {
			// The state folder (logs, blobs) may lie in the workspace
			// (a home folder opened): it is never the turns' change.
			ss.blobs, ss.ckpt = blobs, checkpoint.NewRecorder(blobs, ws.Roots(), st.Dir())
		}
	}
	host := &editorHost{session: ss, LocalHost: tools.LocalHost{Sandbox: ss.sandbox, Scrub: ss.settings.ScrubEnv}}
	dispose, err := tools.Register(s.reg, ss.scope, tools.Options{
		Workspace: ws, Host: host, NativeSearch: s.cfg.NativeSearch,
		Rules: ss.policy, FetchHop: ss.fetchHop, FetchDial: ss.fetchDial,
		Checker: ss.startLSP(),
	})
	if err != nil {
		return nil, fmt.Errorf("registering tools: %w", err)
	}
	ss.disposers = append(ss.disposers, dispose)
	if err := ss.registerPlan(); err != nil {
		return nil, fmt.Errorf("registering todo_write: %w", err)
	}
	if err := ss.registerTask(); err != nil {
		return nil, fmt.Errorf("registering task: %w", err)
	}
	if err := ss.registerAsk(); err != nil {
		return nil, fmt.Errorf("registering ask_user: %w", err)
	}
	ss.guide = newGuidance(ws, ss.instructionsCheck)
	if err := s.codeMode(); err != nil {
		return nil, fmt.Errorf("installing run_code: %w", err)
	}
	if err := ss.setToolsMode(string(s.cfg.ToolsMode)); err != nil {
		return nil, err
	}
	ss.disposers = append(ss.disposers, func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if ss.presentation != nil {
			ss.presentation()
			ss.presentation = nil
		}
	})
	ss.installPolicies()
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.byScope[ss.scope] = ss
	s.mu.Unlock()
	return ss, nil
}

func (s *Server) setMode(ctx context.Context, p setModeParams) (struct{}, error) {
	ss, err := s.requireSession(ctx, p.SessionID)
	if err != nil {
		return struct{}{}, err
	}
	if err := ss.setMode(p.ModeID); err != nil {
		return struct{}{}, err
	}
	ss.record(store.Event{Kind: store.KindMode, Mode: p.ModeID})
	acp.AfterReply(ctx, func() { ss.announceMode(context.Background()) })
	return struct{}{}, nil
}

// sessionCapabilities advertises only what works: list, resume and
// delete need the store.
func (s *Server) sessionCapabilities() map[string]any {
	c := map[string]any{"additionalDirectories": map[string]any{}, "close": map[string]any{}, "systemPrompt": systemPromptCapability()}
	if s.cfg.StateDir != "" {
		c["list"] = map[string]any{}
		c["resume"] = map[string]any{}
		c["fork"] = map[string]any{"atMessageId": true} // fork.go: forkAtMessage
		c["delete"] = map[string]any{}
	}
	return c
}

// agentMeta is agentCapabilities._meta: dsh-bridge's extension methods
// (docs/meta-dsh.md), only those that work (rewinding needs the store).
func (s *Server) agentMeta() map[string]any {
	// A permission request's answer may accept some hunks of an edit.
	dsh := map[string]any{"version": views.MetaVersion, "partialApproval": map[string]any{"hunks": true}}
	if s.cfg.StateDir != "" {
		dsh["sessionRewind"] = map[string]any{"method": rewindMethod}
	}
	return map[string]any{"dsh": dsh}
}

// tokenizerFor is the syntax tokenizer of a client's sessions: none for a
// client that does not draw _meta.dsh cards, which would never show the
// tokens (tokenizing a 100-line read costs some 25 µs for Go, made in the
// bridge, and the helper some 2.5 ms for other languages).
func (s *Server) tokenizerFor(caps clientCapabilities) views.Tokenizer {
	if !caps.rendersCards() {
		return nil
	}
	return s.cfg.Tokenizer
}
