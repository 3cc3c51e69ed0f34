package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// writeBound bounds one write to a server (boundedWriter; a message is
// at most three: an 8 MiB file takes a few milliseconds to a server
// that reads).
const writeBound = 2 * time.Second

// maxOpen bounds the files a server holds open; the least recently
// changed is closed first.
const maxOpen = 64

// doc is a file the server holds open.
type doc struct {
	version int32
	text    string
	seq     uint64 // the server's event count at the last change
}

// published is a file's last diagnostics.
type published struct {
	diags   []card.Diagnostic
	bytes   int   // their size (diagSize)
	version int32 // the document version they are of; 0: not said
	seq     uint64
	at      time.Time
}

// server is one language's server across its restarts.
type server struct {
	m       *Manager
	cfg     Server
	timeout time.Duration
	send    sync.Mutex // orders a document's notifications

	mu        sync.Mutex
	ready     chan struct{} // nil: never started; closed when the current start is over
	up        bool          // started and initialized
	loaded    bool          // it has published diagnostics or ended all its progress: its initial load is over
	loadedAt  time.Time
	started   time.Time // when the current process started
	dead      error     // given up (reported once); never started again
	conn      *jsonrpc2.Conn
	cmd       *exec.Cmd
	exited    chan struct{} // closed when cmd has exited
	framing   *codec        // the current connection's reader
	restarts  int
	docs      map[string]*doc
	diags     map[string]published
	diagBytes int             // of diags (diagSize)
	pubAt     time.Time       // the last kept publication's
	progress  map[string]bool // open $/progress tokens
	seq       uint64          // counts publications and progress events
	wake      chan struct{}   // closed and renewed on every event
}

func newServer(m *Manager, cfg Server) *server {
	t := cfg.StartTimeout
	if t <= 0 {
		t = m.opts.StartTimeout
	}
	return &server{m: m, cfg: cfg, timeout: t, docs: map[string]*doc{}, diags: map[string]published{},
		progress: map[string]bool{}, wake: make(chan struct{})}
}

var errClosed = errors.New("the session's language servers are closed")

// ensure starts the server unless it runs, is starting, or was given up.
func (s *server) ensure() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready != nil || s.dead != nil {
		return
	}
	s.ready = make(chan struct{})
	if !s.m.spawn(s.run) {
		s.dead = errClosed
		close(s.ready)
	}
}

// event records that something arrived: waiters look again.
func (s *server) eventLocked() {
	s.seq++
	close(s.wake)
	s.wake = make(chan struct{})
}

func (s *server) name() string { return fmt.Sprintf("%s (%s)", s.cfg.Command[0], s.cfg.Language) }

// run starts the server and starts it again when it exits, until the
// manager closes or the server is given up.
func (s *server) run(ctx context.Context) {
	for {
		retry, err := s.start(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil && !retry {
			s.giveUp(err)
			return
		}
		if err == nil {
			select {
			case <-ctx.Done():
				return
			case <-s.exitedChan():
			}
			err = errors.New("it exited")
		}
		if e := s.framingFailure(); e != nil {
			err = fmt.Errorf("it was stopped: it %v", e)
		}
		s.mu.Lock()
		s.up, s.conn = false, nil
		select {
		case <-s.ready: // a start that failed: the next has its own
			s.ready = make(chan struct{})
		default: // down made it
		}
		s.diags, s.diagBytes = map[string]published{}, 0
		s.restarts++
		n := s.restarts
		s.eventLocked()
		s.mu.Unlock()
		if n > MaxRestarts {
			s.giveUp(fmt.Errorf("%v, and it was restarted %d times", err, MaxRestarts))
			return
		}
		s.m.opts.Log.Warn("language server stopped; restarting", "server", s.name(), "err", err, "restart", n)
		t := time.NewTimer(s.m.opts.Backoff << (n - 1))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// down marks the server down as soon as its process cmd has exited,
// when it was up: callers wait for the restart (a new ready).
func (s *server) down(cmd *exec.Cmd) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != cmd || !s.up {
		return
	}
	s.up, s.conn = false, nil
	s.ready = make(chan struct{})
	s.eventLocked()
}

// withConn runs fn once the server is up; when fn meets the connection
// closed (the process exited under it), it waits for the exit to be seen
// and runs fn again on the restarted server, at most MaxRestarts+1 times.
func (s *server) withConn(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		if err := s.waitReady(ctx); err != nil {
			return err
		}
		s.mu.Lock()
		exited := s.exited
		s.mu.Unlock()
		err := fn()
		if !errors.Is(err, jsonrpc2.ErrClosed) || attempt > MaxRestarts {
			return err
		}
		t := time.NewTimer(time2s)
		select {
		case <-exited:
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// framingFailure is the protocol error that ended the current
// connection, if one did.
func (s *server) framingFailure() error {
	s.mu.Lock()
	f := s.framing
	s.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.failure()
}

func (s *server) exitedChan() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exited
}

// giveUp marks the server dead and reports it, once, before any waiter
// is woken (so that the report is made while the session lives).
func (s *server) giveUp(err error) {
	s.m.opts.Log.Warn("language server given up", "server", s.name(), "err", err)
	severity := "warning"
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		severity = "info" // not installed: nothing broke
	}
	s.m.report(severity, fmt.Sprintf("The %s language server is not available", s.cfg.Language),
		fmt.Sprintf("%s: %v. Edits of %s files get no diagnostics this session.", s.cfg.Command[0], err, strings.Join(s.cfg.Extensions, " ")))
	s.mu.Lock()
	s.dead, s.up, s.conn = err, false, nil
	if s.ready != nil {
		select {
		case <-s.ready:
		default:
			close(s.ready)
		}
	}
	s.eventLocked()
	s.mu.Unlock()
}

// start runs one server process to the end of its initial load. retry
// says whether a failure is worth another start (the process exited),
// or not (missing, or it did not answer).
func (s *server) start(ctx context.Context) (retry bool, err error) {
	dir := "/"
	if len(s.m.opts.Roots) > 0 {
		dir = s.m.opts.Roots[0]
	}
	cmd, err := s.m.opts.Launch.command(s.cfg.Command, dir)
	if err != nil {
		return false, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return false, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	cmd.Stderr = stderrLog{s}
	if err := startTree(cmd); err != nil {
		return false, err
	}
	exited := make(chan struct{})
	go func() { // ends when the process does (terminate, or its own exit)
		_ = cmd.Wait()
		released(cmd)
		s.down(cmd)
		close(exited)
	}()
	framing := &codec{}
	in := &boundedWriter{w: stdin, bound: writeBound, stop: func() {
		_ = stdin.Close()
		terminate(cmd, exited, 0)
	}}
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(pipe{stdout, in}, framing),
		jsonrpc2.HandlerWithError(s.handle))
	go func() { // the connection ends with the process, and the process with the connection
		select {
		case <-exited:
		case <-conn.DisconnectNotify():
			// A message that broke the framing, or an output closed: the
			// server can say nothing more, so it is stopped, seen down and
			// restarted as after a crash.
			select {
			case <-exited:
			default:
				terminate(cmd, exited, 0)
			}
		}
		conn.Close()
	}()
	s.mu.Lock()
	s.cmd, s.exited, s.started, s.loaded, s.framing = cmd, exited, time.Now(), false, framing
	s.mu.Unlock()
	fail := func(e error) (bool, error) {
		terminate(cmd, exited, time2s)
		<-exited
		return retry, e
	}
	ictx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var result protocol.InitializeResult
	if err := conn.Call(ictx, protocol.MethodInitialize, initializeParams{InitializeParams: s.initializeParams()}, &result); err != nil {
		if e := framing.failure(); e != nil {
			retry = true
			return fail(fmt.Errorf("it %v during initialize", e))
		}
		select {
		case <-exited:
			retry = true
			return fail(fmt.Errorf("it exited during initialize (%v)", err))
		default:
		}
		if ictx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("it did not answer initialize within %v", s.timeout)
		}
		return fail(err)
	}
	if err := conn.Notify(ictx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		retry = true
		return fail(err)
	}
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	s.waitLoaded(ictx)
	s.reopen(conn)
	s.mu.Lock()
	s.up = true
	close(s.ready)
	s.eventLocked()
	s.mu.Unlock()
	return false, nil
}

// waitLoaded returns once the server has been quiet for the quiet period
// with no $/progress open (its initial load is over), or at ctx's end.
func (s *server) waitLoaded(ctx context.Context) {
	quiet := s.m.opts.Quiet
	last, seen := time.Now(), uint64(0)
	for {
		s.mu.Lock()
		busy, wake := len(s.progress) > 0, s.wake
		if s.seq != seen {
			seen, last = s.seq, time.Now()
		}
		s.mu.Unlock()
		left := quiet - time.Since(last)
		if !busy && left <= 0 {
			return
		}
		if left <= 0 {
			left = quiet
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// reopen opens again, after a restart, the files the last process held.
func (s *server) reopen(conn *jsonrpc2.Conn) {
	s.send.Lock()
	defer s.send.Unlock()
	s.mu.Lock()
	var items []protocol.TextDocumentItem
	for path, d := range s.docs {
		d.version, d.seq = 1, s.seq
		items = append(items, protocol.TextDocumentItem{URI: uri.File(path), LanguageID: protocol.LanguageIdentifier(s.cfg.languageID(path)), Version: 1, Text: d.text})
	}
	s.mu.Unlock()
	for _, it := range items {
		if s.notify(conn, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: it}) != nil {
			return
		}
	}
}

// initializeParams is initialize's params with processId null: the
// supervisor ends the server with the bridge, and a server that watches
// the pid it is given (vscode-languageserver's do, with kill(pid, 0))
// would take the bridge for dead from inside the sandbox, where
// Landlock's signal scoping refuses that signal, and exit.
type initializeParams struct {
	*protocol.InitializeParams
	ProcessID *int32 `json:"processId"`
}

func (s *server) initializeParams() *protocol.InitializeParams {
	var folders []protocol.WorkspaceFolder
	for _, r := range s.m.opts.Roots {
		folders = append(folders, protocol.WorkspaceFolder{URI: string(uri.File(r)), Name: filepath.Base(r)})
	}
	p := &protocol.InitializeParams{
		ClientInfo: &protocol.ClientInfo{Name: "dsh-bridge"},
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{
				WorkspaceFolders:      true,
				Configuration:         true,
				DidChangeWatchedFiles: &protocol.DidChangeWatchedFilesWorkspaceClientCapabilities{},
				Symbol:                &protocol.WorkspaceSymbolClientCapabilities{},
			},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
				Hover:              &protocol.HoverTextDocumentClientCapabilities{ContentFormat: []protocol.MarkupKind{protocol.PlainText, protocol.Markdown}},
				Definition:         &protocol.DefinitionTextDocumentClientCapabilities{},
				References:         &protocol.ReferencesTextDocumentClientCapabilities{},
				DocumentSymbol:     &protocol.DocumentSymbolClientCapabilities{HierarchicalDocumentSymbolSupport: true},
			},
			Window: &protocol.WindowClientCapabilities{WorkDoneProgress: true},
		},
		WorkspaceFolders: folders,
	}
	if len(folders) > 0 {
		p.RootURI = protocol.DocumentURI(folders[0].URI)
		p.RootPath = s.m.opts.Roots[0]
	}
	return p
}

// waitReady waits, bounded, until the server is up: through its start,
// and through its restarts.
func (s *server) waitReady(ctx context.Context) error {
	t := time.NewTimer(s.timeout + s.m.opts.Backoff<<MaxRestarts)
	defer t.Stop()
	for {
		s.mu.Lock()
		ready, dead, up := s.ready, s.dead, s.up
		s.mu.Unlock()
		switch {
		case dead != nil:
			return fmt.Errorf("the %s language server is not available: %w", s.cfg.Language, dead)
		case up:
			return nil
		}
		select {
		case <-ready: // up, given up, or down again (a new start has its own ready)
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return fmt.Errorf("the %s language server did not start in time", s.cfg.Language)
		}
	}
}

// stop shuts the server down: shutdown and exit, then its process tree.
func (s *server) stop() {
	s.mu.Lock()
	conn, cmd, exited := s.conn, s.cmd, s.exited
	s.conn, s.up = nil, false
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	if conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if conn.Call(ctx, protocol.MethodShutdown, nil, nil) == nil {
			_ = conn.Notify(ctx, protocol.MethodExit, nil)
		}
		cancel()
		t := time.NewTimer(time.Second)
		select {
		case <-exited:
		case <-t.C:
		}
		t.Stop()
	}
	terminate(cmd, exited, time2s)
	<-exited
	if conn != nil {
		conn.Close()
	}
}
