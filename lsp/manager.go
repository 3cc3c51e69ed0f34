package lsp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// DefaultWait bounds how long Changed waits for a file's diagnostics
// once its server has loaded.
const DefaultWait = 2 * time.Second

// DefaultStartTimeout bounds a server's start and initial load.
const DefaultStartTimeout = 20 * time.Second

// MaxRestarts is how many times a server that exits is started again
// before it is given up.
const MaxRestarts = 3

// ErrNoServer wraps the answers for a file no language server checks.
var ErrNoServer = errors.New("no language server")

// Options configure a Manager.
type Options struct {
	// Roots are the workspace's folders, the first its working directory
	// (where the servers start).
	Roots []string
	// Servers are the configured servers (Merge of Builtins and the
	// settings).
	Servers []Server
	// Launch starts servers (the zero Launcher: unsupervised, which only
	// tests want).
	Launch Launcher
	Log    *slog.Logger
	// Report tells the person about a server once (severity "info",
	// "warning" or "error"); from any goroutine.
	Report func(severity, title, description string)
	// Wait bounds the wait for a change's diagnostics (default
	// DefaultWait); StartTimeout a server's start and load unless the
	// server sets its own (default DefaultStartTimeout); Quiet is the
	// silence that says a server is done (default 150 ms).
	Wait, StartTimeout, Quiet time.Duration
	// Backoff is the first pause before a restart, doubled each time
	// (default 500 ms).
	Backoff time.Duration
}

// Manager owns one session's language servers. Its methods are safe for
// concurrent use; Close ends every server.
type Manager struct {
	opts   Options
	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	servers map[string]*server // by language, made on first touch
}

// New returns a manager of opts.Servers. It starts nothing.
func New(opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Quiet <= 0 {
		opts.Quiet = 150 * time.Millisecond
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	m := &Manager{opts: opts, servers: map[string]*server{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// spawn runs fn on a goroutine the manager owns; Close waits for it.
func (m *Manager) spawn(fn func(ctx context.Context)) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		fn(m.ctx)
	}()
	return true
}

// server is the started (or starting) server of path's language, nil
// when none is configured or the manager is closed.
func (m *Manager) server(path string) *server {
	i := serverFor(m.opts.Servers, path)
	if i < 0 {
		return nil
	}
	cfg := m.opts.Servers[i]
	m.mu.Lock()
	if m.ctx.Err() != nil {
		m.mu.Unlock()
		return nil
	}
	s := m.servers[cfg.Language]
	if s == nil {
		s = newServer(m, cfg)
		m.servers[cfg.Language] = s
	}
	m.mu.Unlock()
	s.ensure()
	return s
}

// Touch says a tool read path: the server of its language starts, if it
// has not, so that it has loaded by the time the file changes. It never
// blocks.
func (m *Manager) Touch(path string) { m.server(path) }

// Changed tells path's server that the file holds text (didOpen the
// first time, else didChange when the text differs, and didSave). With
// wait it then waits, bounded, for the file's diagnostics newer than the
// last change and returns them, followed by the new problems the change
// made in other files (those that import it) published during the wait:
// in no more than a few files, a few each (maxOtherFiles,
// maxOtherPerFile), compared with what was known of them before;
// without, it returns at once. The error says why there are none:
// ErrNoServer, a server given up, or the bound.
func (m *Manager) Changed(ctx context.Context, path, text string, wait bool) ([]card.Diagnostic, error) {
	s := m.server(path)
	if s == nil {
		return nil, fmt.Errorf("%w for %s", ErrNoServer, path)
	}
	var ds []card.Diagnostic
	err := s.withConn(ctx, func() error {
		s.mu.Lock()
		before := s.othersLocked(path)
		s.mu.Unlock()
		since, err := s.sync(ctx, path, text)
		if err != nil || !wait {
			return err
		}
		if ds, err = s.waitDiagnostics(ctx, path, since); err != nil {
			return err
		}
		ds = append(ds, s.newOthers(path, since, before)...)
		return nil
	})
	return ds, err
}

// Open lists the files the servers hold open (sorted): those a command
// may have changed since.
func (m *Manager) Open() []string {
	var out []string
	for _, s := range m.started() {
		out = append(out, s.openPaths()...)
	}
	sort.Strings(out)
	return out
}

// All is every error and warning the servers have published and kept
// (files inside the roots, capped: see publish), the files the agent
// touched first, each part by file (sorted by path).
func (m *Manager) All() []card.Diagnostic {
	var touched, others []card.Diagnostic
	for _, s := range m.started() {
		t, o := s.allDiagnostics()
		touched, others = append(touched, t...), append(others, o...)
	}
	for _, part := range [][]card.Diagnostic{touched, others} {
		sort.SliceStable(part, func(i, j int) bool { return part[i].Path < part[j].Path })
	}
	return card.Problems(append(touched, others...))
}

func (m *Manager) started() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].cfg.Language < out[j].cfg.Language })
	return out
}

// report tells the person once per server and cause.
func (m *Manager) report(severity, title, desc string) {
	if m.opts.Report != nil && m.ctx.Err() == nil {
		m.opts.Report(severity, title, desc)
	}
}

// Close shuts every server down (shutdown and exit, then the process
// tree) and waits for the manager's goroutines.
func (m *Manager) Close() {
	m.mu.Lock()
	m.cancel()
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Add(1)
		go func() { defer wg.Done(); s.stop() }()
	}
	wg.Wait()
	m.wg.Wait()
}
