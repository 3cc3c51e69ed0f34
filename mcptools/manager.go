package mcptools

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Options configures a Manager.
type Options struct {
	Version string
	Log     *slog.Logger
	// Supervisor is the binary that answers sandbox.SuperviseArg (this
	// executable); stdio servers run under it so none outlives dsh-bridge.
	Supervisor string
	// Scrub lists variables (besides the API keys) servers never see.
	Scrub []string
	// UserSettings is the user's settings file, named in the advice on
	// trusting a server.
	UserSettings string
	// StartTimeout bounds each server's start (default 20 s).
	StartTimeout time.Duration
	// Report tells the person about a server: severity "info", "warning"
	// or "error". It may be called from any goroutine.
	Report func(severity, title, description string)
	// Progress relays a server's progress notification for a running call
	// (total 0: unknown). It may be called from any goroutine.
	Progress func(callID, message string, progress, total float64)
}

// Manager owns a session's MCP servers: their connections, restarts and
// registered tools. Close ends all of it.
type Manager struct {
	reg   *registry.Registry
	scope *registry.Scope
	opts  Options

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	servers []*server
	names   namer
}

// Start connects every server in parallel, each within the start timeout,
// registers their tools in scope, and returns once all have started or
// failed. A failure is reported and leaves the others working.
func Start(ctx context.Context, reg *registry.Registry, scope *registry.Scope, servers []Server, opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	m := &Manager{reg: reg, scope: scope, opts: opts}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, cfg := range servers {
		s := &server{cfg: cfg, m: m}
		m.servers = append(m.servers, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
			defer cancel()
			if err := s.connect(sctx); err != nil {
				if sctx.Err() == context.DeadlineExceeded {
					err = fmt.Errorf("it did not start within %v", opts.StartTimeout)
				}
				s.mu.Lock()
				s.down = err
				s.mu.Unlock()
				m.report("warning", fmt.Sprintf("MCP server %q is not available", cfg.Name),
					fmt.Sprintf("It failed to start: %v. The session goes on without its tools.", err))
			}
		}()
	}
	wg.Wait()
	return m
}

// spawn runs fn on a goroutine the manager owns; Close waits for it.
func (m *Manager) spawn(fn func(ctx context.Context)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		fn(m.ctx)
	}()
}

func (m *Manager) report(severity, title, desc string) {
	if m.opts.Report != nil && m.ctx.Err() == nil {
		m.opts.Report(severity, title, desc)
	}
}

// Tools lists the model-facing names of the tools each server registered.
func (m *Manager) Tools() map[string][]string {
	out := map[string][]string{}
	for _, s := range m.servers {
		s.mu.Lock()
		out[s.cfg.Name] = append([]string(nil), s.tools...)
		s.mu.Unlock()
	}
	return out
}

// PlanNote returns what plan mode's refusal of tool adds when the tool's
// server says it only reads but is not trusted for its annotations: why
// that claim does not count and how the user can trust the server. It is
// "" for any other tool.
func (m *Manager) PlanNote(tool string) string {
	for _, s := range m.servers {
		s.mu.Lock()
		claims := s.claimsRead[tool]
		s.mu.Unlock()
		if !claims {
			continue
		}
		where := "your user settings file"
		if m.opts.UserSettings != "" {
			where = m.opts.UserSettings
		}
		return fmt.Sprintf("The MCP server %q marks this tool read-only (readOnlyHint), but a server's annotations are only hints and are not trusted unless the user's own settings trust that server, so it is judged as a tool that may change anything. "+
			"The user can trust this server's annotations by adding \"trustAnnotations\": true to its entry %q under mcpServers in %s (for a server the editor starts, that entry must have the same command, arguments and environment, or the same url).",
			s.cfg.Name, s.cfg.Name, where)
	}
	return ""
}

// Close unregisters every tool, stops every server (a stdio server's
// process group included) and waits for the manager's goroutines. Safe to
// call more than once.
func (m *Manager) Close() {
	m.mu.Lock()
	m.cancel()
	m.mu.Unlock()
	for _, s := range m.servers {
		s.close()
	}
	m.wg.Wait()
}
