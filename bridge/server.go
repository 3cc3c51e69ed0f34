package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

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

	// conn is captured from the first Handle call: jsonrpc2 starts reading
	// inside NewConn, so a message can arrive before NewConn returns.
	conn     *jsonrpc2.Conn
	connOnce sync.Once
	// stream is the connection's line stream: notifications are written
	// to it directly, encoded once (jsonrpc2 would re-encode them twice).
	stream *lineStream

	mu       sync.Mutex
	caps     clientCapabilities
	sessions map[string]*Session
	byScope  map[*registry.Scope]*Session
	inflight map[string]context.CancelFunc // inbound request id → cancel
	// restoring holds, per session id, a channel closed when the load or
	// resume restoring it has answered.
	restoring map[string]chan struct{}
	models    modelList
	sweep     sync.Once      // spill files of dead processes, swept at the first session
	wg        sync.WaitGroup // request goroutines

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
		byScope: map[*registry.Scope]*Session{}, inflight: map[string]context.CancelFunc{}, restoring: map[string]chan struct{}{}}
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
	stream := newLineStream(r, w, nil, s.log)
	s.stream = stream
	stream.onEOF = func() {
		// The client is gone: stop every turn (pending calls to it can never
		// be answered), then let in-flight requests write their replies.
		s.endLife()
		s.mu.Lock()
		for _, ss := range s.sessions {
			ss.cancelTurn()
		}
		s.mu.Unlock()
		s.wg.Wait()
	}
	conn := jsonrpc2.NewConn(ctx, stream, s)
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.endLife()
	s.mu.Lock()
	for _, c := range s.inflight {
		c()
	}
	sessions := make([]*Session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.cancelTurn()
	}
	s.wg.Wait()
	for _, ss := range sessions {
		ss.close()
	}
	if !stream.drain(drainWait) {
		s.log.Warn("the client stopped reading: the last messages were not written", "waited", drainWait)
	}
	tools.RemoveOwnSpillDir()
	return nil
}

// drainWait bounds how long Serve, once done, waits for its last messages
// to be written to a client that may have stopped reading.
const drainWait = 5 * time.Second

// Handle implements jsonrpc2.Handler. It runs on the connection's read
// loop, so it never blocks and never calls the client: notifications are
// handled inline, in arrival order; initialize inline; every other request
// on its own goroutine.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.connOnce.Do(func() { s.conn = conn }) // before any goroutine that uses it starts
	if req.Notif {
		s.notification(req)
		return
	}
	if req.Method == "initialize" {
		s.respond(ctx, req, func(context.Context) (any, error) { return s.initialize(req) })
		return
	}
	key := req.ID.String()
	rctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.inflight[key] = cancel
	restoring := s.markRestoring(req)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if restoring != nil {
				s.mu.Lock()
				close(s.restoring[restoring.id])
				delete(s.restoring, restoring.id)
				s.mu.Unlock()
			}
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		s.respond(rctx, req, func(ctx context.Context) (any, error) { return s.dispatch(ctx, req) })
	}()
}

// restoringID names a session a load or resume request is restoring.
type restoringID struct{ id string }

// markRestoring records, in arrival order (on the read loop, with s.mu
// held), that a session/load or session/resume is restoring a session, so
// that requests for it that arrive behind the load wait for it.
func (s *Server) markRestoring(req *jsonrpc2.Request) *restoringID {
	if (req.Method != "session/load" && req.Method != "session/resume") || req.Params == nil {
		return nil
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(*req.Params, &p) != nil || p.SessionID == "" {
		return nil
	}
	if _, busy := s.restoring[p.SessionID]; busy {
		return nil
	}
	s.restoring[p.SessionID] = make(chan struct{})
	return &restoringID{p.SessionID}
}

// respond runs a handler, converting panics into -32603 and errors into
// wire codes, and replies on a context that outlives the request's.
func (s *Server) respond(ctx context.Context, req *jsonrpc2.Request, h func(context.Context) (any, error)) {
	result, err := func() (result any, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("handler panicked", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
				err = &jsonrpc2.Error{Code: codeInternalError, Message: fmt.Sprintf("internal error in %s", req.Method)}
			}
		}()
		return h(ctx)
	}()
	var after func()
	if a, ok := result.(withAfter); ok {
		result, after = a.result, a.after
	}
	if err != nil {
		if e := s.reply(req.ID, nil, toWire(err)); e != nil {
			s.log.Warn("reply failed", "method", req.Method, "err", e)
		}
		return
	}
	if e := s.reply(req.ID, result, nil); e != nil {
		s.log.Warn("reply failed", "method", req.Method, "err", e)
		var enc *encodingError
		if !errors.As(e, &enc) {
			return
		}
		// The client must not wait forever for an answer that cannot be
		// written: it gets an error instead.
		if e := s.reply(req.ID, nil, toWire(e)); e != nil {
			s.log.Warn("reply failed", "method", req.Method, "err", e)
		}
		return
	}
	if after != nil {
		after()
	}
}

// withAfter is a result with work to do once the reply is written.
type withAfter struct {
	result any
	after  func()
}

func decode(req *jsonrpc2.Request, v any) error {
	if req.Params == nil {
		return invalidParams("%s needs params", req.Method)
	}
	if err := json.Unmarshal(*req.Params, v); err != nil {
		return invalidParams("%s: %v", req.Method, err)
	}
	return nil
}

// dispatch is the method table of requests.
func (s *Server) dispatch(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "session/new":
		return s.newSession(ctx, req)
	case "session/prompt":
		return s.prompt(ctx, req)
	case "session/set_mode":
		return s.setMode(ctx, req)
	case "session/set_config_option":
		return s.setConfigOption(ctx, req)
	case "session/load":
		return s.loadSession(ctx, req, true)
	case "session/resume":
		return s.loadSession(ctx, req, false)
	case "session/list":
		return s.listSessions(req)
	case "session/close":
		return s.closeSession(ctx, req)
	case "authenticate":
		return map[string]any{}, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrMethodNotFound, req.Method)
}

// notification handles session/cancel and $/cancel_request; other
// notifications (unknown, `_`-prefixed, `$/` ones) are ignored.
func (s *Server) notification(req *jsonrpc2.Request) {
	switch req.Method {
	case "session/cancel":
		var p sessionParams
		if decode(req, &p) == nil {
			if ss := s.session(p.SessionID); ss != nil {
				ss.cancelTurn()
			}
		}
	case "$/cancel_request":
		var p cancelRequestParams
		if decode(req, &p) == nil {
			var id jsonrpc2.ID
			if json.Unmarshal(p.RequestID, &id) == nil {
				s.mu.Lock()
				cancel := s.inflight[id.String()]
				s.mu.Unlock()
				if cancel != nil {
					cancel()
				}
			}
		}
	default:
		if !strings.HasPrefix(req.Method, "_") && !strings.HasPrefix(req.Method, "$/") {
			s.log.Debug("ignored an unknown notification", "method", req.Method)
		}
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
