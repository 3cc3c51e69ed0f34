package mcptools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/internal/helperbin"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

// server is one connected (or reconnecting) MCP server and the tools it
// registered.
type server struct {
	cfg Server
	m   *Manager

	mu       sync.Mutex
	session  *mcp.ClientSession // nil while down
	down     error              // why the server is unavailable (nil: up)
	disposes []func()           // the registered tools
	tools    []string           // their model-facing names
	// claimsRead holds the registered tools whose readOnlyHint the
	// server is not trusted for.
	claimsRead map[string]bool
}

// connect starts (or reaches) the server and lists its tools.
func (s *server) connect(ctx context.Context) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "dsh-bridge", Version: s.m.opts.Version}, &mcp.ClientOptions{
		Logger: s.m.opts.Log,
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p := req.Params
			if callID, ok := strings.CutPrefix(fmt.Sprint(p.ProgressToken), progressPrefix); ok && s.m.opts.Progress != nil {
				s.m.opts.Progress(callID, p.Message, p.Progress, p.Total)
			}
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.m.spawn(func(ctx context.Context) {
				if err := s.refresh(ctx); err != nil {
					s.m.opts.Log.Warn("MCP tool list refresh failed", "server", s.cfg.Name, "err", err)
				}
			})
		},
	})
	transport, err := s.transport()
	if err != nil {
		return err
	}
	// The connection lives with the manager (an SSE stream is bound to
	// the context it was opened with); the start deadline applies only
	// until the server is up.
	connCtx, cancelConn := context.WithCancel(s.m.ctx)
	stop := context.AfterFunc(ctx, cancelConn)
	cs, err := client.Connect(connCtx, transport, nil)
	if err != nil {
		stop()
		cancelConn()
		return err
	}
	s.mu.Lock()
	s.session, s.down = cs, nil
	s.mu.Unlock()
	if err := s.refresh(ctx); err != nil {
		stop()
		cs.Close()
		cancelConn()
		return err
	}
	if !stop() { // the start deadline passed meanwhile
		cs.Close()
		cancelConn()
		return ctx.Err()
	}
	s.m.spawn(func(ctx context.Context) {
		defer cancelConn()
		s.watch(ctx, cs)
	})
	return nil
}

// transport builds the SDK transport of the server's configuration.
func (s *server) transport() (mcp.Transport, error) {
	c := s.cfg
	switch c.Type {
	case "http", "sse":
		hc := &http.Client{Transport: headerTransport{headers: c.Headers, base: http.DefaultTransport}}
		if c.Type == "sse" {
			return &mcp.SSEClientTransport{Endpoint: c.URL, HTTPClient: hc}, nil
		}
		return &mcp.StreamableClientTransport{Endpoint: c.URL, HTTPClient: hc}, nil
	}
	// Looked up here, outside the folders commands may write: the
	// supervisor would find a program a command planted on $PATH.
	dir, prog := c.Dir, c.Command
	if dir == "" {
		dir = "/"
	}
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	prog, err := safepath.LookPath(prog) // a bare name: $PATH's absolute folders only
	if err != nil {
		return nil, err
	}
	argv := append([]string{prog}, c.Args...)
	attr := helperbin.GroupAttr() // a group of its own; on Linux killed with us
	if self := s.m.opts.Supervisor; self != "" {
		// The supervisor ends the server, and all it started, with us.
		argv, attr = sandbox.Supervised(self, argv), sandbox.SupervisorAttr(attr)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = attr
	cmd.Dir = dir
	cmd.Env = s.m.env(c.Env)
	cmd.Stderr = stderrLog{s}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// stderrLog forwards a stdio server's stderr to the log, line by line.
type stderrLog struct{ s *server }

func (l stderrLog) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			l.s.m.opts.Log.Debug("MCP server stderr", "server", l.s.cfg.Name, "line", line)
		}
	}
	return len(p), nil
}

// refresh (re)lists the server's tools and replaces its registrations.
func (s *server) refresh(ctx context.Context) error {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return errors.New("the server is not connected")
	}
	var listed []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing the tools: %w", err)
		}
		listed = append(listed, t)
	}
	var defs []*registry.Tool
	claims := map[string]bool{}
	for _, t := range listed {
		d := s.define(t)
		defs = append(defs, d)
		if !s.cfg.TrustAnnotations && t.Annotations != nil && t.Annotations.ReadOnlyHint {
			claims[d.Name] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.disposes {
		d()
	}
	s.disposes, s.tools, s.claimsRead = nil, nil, claims
	for _, d := range defs {
		undo, err := s.m.reg.Register(d, s.m.scope)
		if err != nil {
			s.m.opts.Log.Warn("an MCP tool could not be registered", "server", s.cfg.Name, "tool", d.Name, "err", err)
			continue
		}
		s.disposes = append(s.disposes, undo)
		s.tools = append(s.tools, d.Name)
	}
	return nil
}

// watch waits for the connection to end; unless the manager is closing,
// the server is marked down and restarted with backoff.
func (s *server) watch(ctx context.Context, cs *mcp.ClientSession) {
	err := cs.Wait()
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		err = errors.New("the connection closed")
	}
	s.mu.Lock()
	if s.session == cs {
		s.session, s.down = nil, err
	}
	s.mu.Unlock()
	s.m.report("warning", fmt.Sprintf("MCP server %q stopped", s.cfg.Name),
		fmt.Sprintf("Its tools fail until it is back (%v); dsh-bridge restarts it.", err))
	for attempt, wait := 1, time.Second; attempt <= restartAttempts; attempt, wait = attempt+1, wait*2 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		cctx, cancel := context.WithTimeout(ctx, s.m.opts.StartTimeout)
		err := s.connect(cctx)
		cancel()
		if err == nil {
			s.m.report("info", fmt.Sprintf("MCP server %q is back", s.cfg.Name), "Its tools work again.")
			return
		}
		s.mu.Lock()
		s.down = err
		s.mu.Unlock()
	}
	s.m.report("error", fmt.Sprintf("MCP server %q could not be restarted", s.cfg.Name),
		fmt.Sprintf("Gave up after %d attempts; its tools stay unavailable in this session.", restartAttempts))
}

// progressPrefix starts the progress token of each call; the call id
// follows.
const progressPrefix = "dsh-call:"

// restartAttempts bounds the restarts of a server that keeps failing.
const restartAttempts = 5

// current returns the live session, or why there is none.
func (s *server) current() (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		why := s.down
		if why == nil {
			why = errors.New("not connected")
		}
		return nil, s.unavailable(why)
	}
	return s.session, nil
}

// unavailable is the error of a call the server cannot take, and why.
func (s *server) unavailable(why error) error {
	return fmt.Errorf("the MCP server %q is unavailable (%v); its tools cannot run until it is back", s.cfg.Name, why)
}

func (s *server) close() {
	s.mu.Lock()
	cs := s.session
	s.session = nil
	disposes := s.disposes
	s.disposes = nil
	s.mu.Unlock()
	for _, d := range disposes {
		d()
	}
	if cs != nil {
		cs.Close()
	}
}

// env is the environment of a stdio server: ours without the secrets,
// plus the server's own variables.
func (m *Manager) env(extra map[string]string) []string {
	out := tools.ScrubbedEnv(m.opts.Scrub)
	for k, v := range extra {
		out = append(out, k+"="+v)
	}
	return out
}
