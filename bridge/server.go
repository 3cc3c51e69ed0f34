package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// Config configures a Server.
type Config struct {
	// Model is the chat model; when nil, ModelErr explains why (for
	// example model.ErrNoAPIKey) and every prompt ends with that message.
	Model    model.Client
	ModelErr error
	// SignIn, when set, is asked for the model while Model is nil and
	// ModelErr is model.ErrNoAPIKey: at session/new, session/load,
	// session/resume and authenticate (bridge/auth.go). It returns
	// model.ErrNoAPIKey while there is still no key.
	SignIn func() (model.Client, error)
	// ModelName is the configured model; empty picks the first preferred
	// model the endpoint lists (model.Default).
	ModelName string
	// ModelSettings describes models (windows, prices) and tunes
	// compaction; the zero value means model.Defaults().
	ModelSettings model.Settings
	// LoadModelSettings, when set, replaces ModelSettings: it is called at
	// most once, when the first session needs them (never for initialize).
	LoadModelSettings func() model.Settings
	// Now is the clock prices are read at (nil: time.Now).
	Now func() time.Time
	// MaxTurnRequests caps model requests per prompt turn (default 50).
	MaxTurnRequests int
	// MaxParallel bounds parallel tool calls (default 10).
	MaxParallel int
	// Admitted bounds the tool bodies running at once across all sessions,
	// run_code's sub-calls included (default 2 × GOMAXPROCS; a call counts
	// for AdmissionLease at most, default 10 ms, so commands and fetches
	// never hold others back).
	Admitted       int
	AdmissionLease time.Duration
	// NativeSearch forces the native grep/glob walker.
	NativeSearch bool
	// ToolsMode is how sessions present tools to the model unless they
	// choose otherwise (tools_mode): native (default), code or both.
	ToolsMode registry.Presentation
	// CodeMode tunes run_code (its timeout, output limit and sub-call pool).
	CodeMode codemode.Config
	// StateDir holds the session logs, opened (created) when the first
	// session needs it; empty disables durable sessions (no session/load
	// or session/list).
	StateDir string
	// Tokenizer gives read cards and run_code programs their syntax
	// tokens, after the result (nil: cards have none). Its owner closes it
	// after Serve returns.
	Tokenizer views.Tokenizer
	// AfterTurn, when set, is called after each prompt turn has ended
	// (its updates are out, its answer not yet), from the goroutine that
	// served the prompt, with what every session's history holds (text
	// and cached encodings, model.History.Footprint); calls may overlap.
	AfterTurn func(historyBytes int)
	Version   string
	Log       *slog.Logger
	// Self is the dsh-bridge binary started again as the commands'
	// sandbox helper and supervisor and the MCP servers' supervisor
	// (empty: sandbox.Self(), this process's binary; a test serving in
	// its own process names the built one).
	Self string
}

// Server is one ACP agent connection: it serves a single client over one
// stream until the stream ends.
type Server struct {
	cfg       Config
	log       *slog.Logger
	reg       *registry.Registry
	pipe      *pipeline.Pipeline
	presenter registry.Presenter
	// store, settings and run_code are built on first use: initialize
	// needs none of them.
	store    func() *store.Store
	settings func() model.Settings
	codeMode func() error

	// conn is the connection Serve runs: every byte to and from the
	// client goes through it.
	conn *acp.Conn

	signIn   sync.Mutex // serialises requireKey, the writer of cfg.Model
	mu       sync.Mutex
	caps     clientCapabilities
	sessions map[string]*Session
	byScope  map[*registry.Scope]*Session
	children map[string]runningChild // running subagents, by their session id
	// restoring holds, per session id, a channel closed when the load or
	// resume restoring it has answered.
	restoring map[string]chan struct{}
	models    modelList
	sweep     sync.Once // spill files of dead processes, swept at the first session

	// life ends when the client's input does: calls to the client that
	// outlive a turn (editor terminals) derive from it, so they stop
	// waiting for answers that can no longer come.
	life    context.Context
	endLife context.CancelFunc
}

// NewServer returns a server; call Serve to run it.
func NewServer(cfg Config) *Server {
	if cfg.MaxTurnRequests <= 0 {
		cfg.MaxTurnRequests = 50
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.ToolsMode == "" {
		cfg.ToolsMode = registry.Native
	}
	if cfg.Admitted <= 0 {
		cfg.Admitted = 2 * runtime.GOMAXPROCS(0)
	}
	if cfg.AdmissionLease <= 0 {
		cfg.AdmissionLease = 10 * time.Millisecond
	}
	s := &Server{cfg: cfg, log: cfg.Log, reg: registry.New(registry.WithCodeMode(), registry.WithDefaultPresentation(cfg.ToolsMode)), sessions: map[string]*Session{},
		byScope: map[*registry.Scope]*Session{}, children: map[string]runningChild{}, restoring: map[string]chan struct{}{}}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.pipe = pipeline.New(s.reg, pipeline.WithApprover(s), pipeline.WithLogger(cfg.Log),
		pipeline.WithAdmission(pipeline.NewAdmission(cfg.Admitted, cfg.AdmissionLease)))
	s.pipe.WrapExecute(nil, pipeline.TimeoutPolicy(s.reg))
	s.codeMode = sync.OnceValue(s.installCodeMode) // at the first session: initialize needs none of it
	s.presenter = registry.Presenter{Registry: s.reg, Log: cfg.Log}
	s.store = sync.OnceValue(func() *store.Store {
		if cfg.StateDir == "" {
			return nil
		}
		st, err := store.Open(cfg.StateDir)
		if err != nil {
			s.log.Error("the session store is unavailable; sessions will not be resumable", "dir", cfg.StateDir, "err", err)
			return nil
		}
		return st
	})
	s.settings = sync.OnceValue(func() model.Settings {
		ms := cfg.ModelSettings
		if cfg.LoadModelSettings != nil {
			ms = cfg.LoadModelSettings()
		}
		if ms.Compaction.Threshold == 0 {
			ms.Compaction = model.Defaults().Compaction
		}
		return ms
	})
	return s
}

// Serve speaks ACP over r and w until r ends or ctx is done, then cancels
// every session's work, waits for it, and returns.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s.conn = acp.NewConn(r, w, s.methods(), acp.Options{Log: s.log, Arrive: s.arrive, Stop: s.stop})
	s.conn.Serve(ctx)
	s.mu.Lock()
	sessions := make([]*Session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.close()
	}
	if !s.conn.Close(drainWait) {
		s.log.Warn("the client stopped reading: the last messages were not written", "waited", drainWait)
	}
	tools.RemoveOwnSpillDir()
	return nil
}

// stop ends the work of every session: the client is gone, or Serve's
// context is done. Calls to the client can never be answered any more.
func (s *Server) stop() {
	s.endLife()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		ss.cancelTurn()
	}
}

// drainWait bounds how long Serve, once done, waits for its last messages
// to be written to a client that may have stopped reading.
const drainWait = 5 * time.Second

// methods is the method table: each handler takes its typed params and
// returns its typed result or a wrapped sentinel (acp.Handle).
func (s *Server) methods() map[string]acp.Method {
	return map[string]acp.Method{
		"initialize":                acp.Inline(s.initialize),
		"authenticate":              acp.Handle(s.authenticate),
		"session/new":               acp.Handle(s.newSession),
		"session/prompt":            acp.Handle(s.prompt),
		"session/set_mode":          acp.Handle(s.setMode),
		"session/set_config_option": acp.Handle(s.setConfigOption),
		"session/load": acp.Handle(func(ctx context.Context, p loadParams) (loadResult, error) {
			return s.loadSession(ctx, p, "session/load")
		}),
		"session/resume": acp.Handle(func(ctx context.Context, p loadParams) (loadResult, error) {
			return s.loadSession(ctx, p, "session/resume")
		}),
		"session/list":   acp.HandleOptional(s.listSessions),
		"session/close":  acp.Handle(s.closeSession),
		"session/delete": acp.Handle(s.deleteSession),
		"session/cancel": acp.Notification(s.cancel),
		"session/fork":   acp.Handle(s.forkSession),
		rewindMethod:     acp.Handle(s.rewindSession),
	}
}

// cancel serves session/cancel.
func (s *Server) cancel(_ context.Context, p sessionParams) {
	if ss := s.session(p.SessionID); ss != nil {
		ss.cancelTurn()
		return
	}
	s.cancelChild(p.SessionID)
}

// arrive runs on the read loop for every request, in arrival order:
// session/load and session/resume mark their session as restoring, and a
// session/prompt is recorded so that a session/cancel read after it
// cancels it, however late its handler starts.
func (s *Server) arrive(ctx context.Context, method string, params *json.RawMessage) (context.Context, func()) {
	if method == "session/prompt" {
		if ss := s.session(sessionIDOf(params)); ss != nil {
			return ss.arrive(ctx)
		}
		return ctx, nil
	}
	return ctx, s.markRestoring(method, params)
}

// sessionIDOf is the sessionId of a request's params, "" when it has
// none.
func sessionIDOf(params *json.RawMessage) string {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if params == nil || json.Unmarshal(*params, &p) != nil {
		return ""
	}
	return p.SessionID
}

// markRestoring records, in arrival order (on the read loop), that a
// session/load or session/resume is restoring a session, so that requests
// for it that arrive behind the load wait for it; what it returns ends
// the restoring once the load has answered.
func (s *Server) markRestoring(method string, params *json.RawMessage) (answered func()) {
	if (method != "session/load" && method != "session/resume") || params == nil {
		return nil
	}
	id := sessionIDOf(params)
	if id == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.restoring[id]; busy {
		return nil
	}
	s.restoring[id] = make(chan struct{})
	return func() {
		s.mu.Lock()
		close(s.restoring[id])
		delete(s.restoring, id)
		s.mu.Unlock()
	}
}

// notify sends a session/update; updates of one turn are written in order,
// before the turn's answer.
func (s *Server) notify(_ context.Context, sessionID string, update any) {
	err := s.conn.Notify("session/update", sessionNotification{SessionID: sessionID, Update: update})
	switch {
	case errors.Is(err, acp.ErrUnencodable):
		s.log.Error("session/update not encodable", "err", err)
	case err != nil:
		s.log.Debug("session/update not sent", "err", err)
	}
}

func (s *Server) session(id string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// requireSession returns an open session, waiting while it is still being
// restored by session/load or session/resume: a request sent right behind
// the load runs after the history and the log are back, never during the
// replay.
func (s *Server) requireSession(ctx context.Context, id string) (*Session, error) {
	s.mu.Lock()
	restoring := s.restoring[id]
	s.mu.Unlock()
	if restoring != nil {
		select {
		case <-restoring:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ss := s.session(id)
	if ss == nil {
		return nil, fmt.Errorf("%w: %q", ErrSessionNotFound, id)
	}
	select {
	case <-ss.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.session(id) != ss { // the load failed, or the session was closed
		return nil, fmt.Errorf("%w: %q", ErrSessionNotFound, id)
	}
	return ss, nil
}
