package mcptools

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Server describes one MCP server to connect.
type Server struct {
	Name    string
	Type    string // "stdio", "http" or "sse"
	Command string
	Args    []string
	Env     map[string]string
	// Dir is the folder a stdio server starts in (absolute), and the one a
	// relative Command with a slash is taken from; "" is "/". The
	// bridge's own working directory is never used: editors start agents
	// in the project, and launchers that resolve programs from their
	// working directory (npx, python -m, uv run, node ./x) would run the
	// workspace's code under the name of the server the user configured.
	Dir     string
	URL     string
	Headers map[string]string
	// Timeout bounds each tool call (default 60 s).
	Timeout time.Duration
	// TrustAnnotations lets the server's tool annotations (readOnlyHint,
	// destructiveHint) decide how its calls are judged. Without it every
	// tool is judged as one that may do anything: "clients MUST consider
	// tool annotations to be untrusted unless they come from trusted
	// servers" (modelcontextprotocol.io/specification/2025-11-25/server/
	// tools, read 2026-12-04).
	TrustAnnotations bool
}

// DefaultCallTimeout is a tool call's timeout when the server sets none.
const DefaultCallTimeout = 60 * time.Second

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// acpServer is ACP's McpServer: stdio has no type; http and sse do.
type acpServer struct {
	Type    string      `json:"type"`
	Name    string      `json:"name"`
	Command string      `json:"command"`
	Args    []string    `json:"args"`
	Env     []nameValue `json:"env"`
	URL     string      `json:"url"`
	Headers []nameValue `json:"headers"`
}

// FromACP decodes the mcpServers of a session request. A malformed entry is
// an error naming it.
func FromACP(raw []json.RawMessage) ([]Server, error) {
	var out []Server
	for i, r := range raw {
		var a acpServer
		if err := json.Unmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("mcpServers[%d]: %v", i, err)
		}
		s := Server{Name: a.Name, Type: a.Type, Command: a.Command, Args: a.Args, URL: a.URL}
		if s.Type == "" {
			s.Type = "stdio"
		}
		if len(a.Env) > 0 {
			s.Env = map[string]string{}
			for _, e := range a.Env {
				s.Env[e.Name] = e.Value
			}
		}
		if len(a.Headers) > 0 {
			s.Headers = map[string]string{}
			for _, h := range a.Headers {
				s.Headers[h.Name] = h.Value
			}
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("mcpServers[%d]: %v", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// Settings is the mcpServers object of a settings file:
// {name: {command, args, env} | {url, headers, type}}.
type Settings map[string]struct {
	Type      string            `json:"type"`
	Command   string            `json:"command"`
	Args      []string          `json:"args"`
	Env       map[string]string `json:"env"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	TimeoutMs float64           `json:"timeoutMs"`
	// TrustAnnotations counts only in the user's own settings file.
	TrustAnnotations bool `json:"trustAnnotations"`
}

// Servers returns the settings' servers, sorted by name.
func (st Settings) Servers() ([]Server, error) {
	var out []Server
	for name, c := range st {
		s := Server{Name: name, Type: c.Type, Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL, Headers: c.Headers,
			Timeout: time.Duration(c.TimeoutMs * float64(time.Millisecond)), TrustAnnotations: c.TrustAnnotations}
		if s.Type == "" {
			s.Type = "stdio"
			if s.URL != "" {
				s.Type = "http"
			}
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("mcpServers.%s: %v", name, err)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Merge returns the settings' servers with the editor's: the editor wins a
// name clash.
func Merge(fromSettings, fromEditor []Server) []Server {
	out := slices.Clone(fromEditor)
	for _, s := range fromSettings {
		if !slices.ContainsFunc(fromEditor, func(e Server) bool { return e.Name == s.Name }) {
			out = append(out, s)
		}
	}
	return out
}

// TrustFromUser returns the editor's servers, each trusting its
// annotations only when the user's settings have a server of its name
// with trustAnnotations that is the same server: the same transport and
// command, arguments and environment (stdio) or URL (http, sse). A name
// alone is not enough, since a workspace's files can feed an editor's
// MCP configuration. untrusted names the editor's servers that the user's
// settings trust under their name but that differ from that entry.
func TrustFromUser(fromEditor, fromUser []Server) (out []Server, untrusted []string) {
	out = slices.Clone(fromEditor)
	for i, e := range out {
		e.TrustAnnotations = false
		for _, u := range fromUser {
			if u.Name != e.Name || !u.TrustAnnotations {
				continue
			}
			if e.sameAs(u) {
				e.TrustAnnotations = true
			} else {
				untrusted = append(untrusted, e.Name)
			}
		}
		out[i] = e
	}
	return out, untrusted
}

// sameAs reports whether s and o start or reach the same server.
func (s Server) sameAs(o Server) bool {
	if s.Type != o.Type {
		return false
	}
	if s.Type == "stdio" {
		return s.Command == o.Command && slices.Equal(s.Args, o.Args) && maps.Equal(s.Env, o.Env)
	}
	return s.URL == o.URL
}

func (s Server) check() error {
	switch {
	case strings.TrimSpace(s.Name) == "":
		return fmt.Errorf("a server needs a name")
	case s.Type == "stdio" && s.Command == "":
		return fmt.Errorf("server %q: a stdio server needs a command", s.Name)
	case (s.Type == "http" || s.Type == "sse") && s.URL == "":
		return fmt.Errorf("server %q: an %s server needs a url", s.Name, s.Type)
	case s.Type != "stdio" && s.Type != "http" && s.Type != "sse":
		return fmt.Errorf("server %q: unknown transport %q (stdio, http, sse)", s.Name, s.Type)
	case s.Timeout < 0:
		return fmt.Errorf("server %q: the timeout must be positive", s.Name)
	}
	return nil
}
