package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// ACP authentication (schema.json: AuthMethod, AuthMethodTerminal,
// AuthMethodAgent, AuthCapabilities; the error auth_required).
//
// The bridge needs an API key only for a model endpoint: with a scripted
// model (script:PATH) or a model already connected, every method passes.
// Without a key, session/new, session/load and session/resume fail with
// auth_required (-32000), which is when claude-agent-acp and codex-acp
// ask too and when Zed shows its sign-in step (the methods of the
// initialize answer); Config.SignIn is asked again at each of them, so
// that a key `dsh-bridge login` stored meanwhile is taken without a
// restart.

// Authentication method ids.
const (
	// AuthAgent is the agent method, offered to every client: the key
	// from the environment or from what `dsh-bridge login` stored.
	AuthAgent = "dsh-api-key"
	// AuthTerminal is the terminal method: the client runs
	// `dsh-bridge login` in a terminal and never sends it to authenticate.
	AuthTerminal = "dsh-login"
)

// ErrAuthRequired means no API key is set or stored: ACP's
// auth_required.
var ErrAuthRequired = acp.NewError(acp.CodeAuthRequired, "authentication required")

// signInHelp is how a person signs in, for the auth_required message and
// a failed authenticate.
const signInHelp = "no API key is set or stored. Sign in with `dsh-bridge login` (the editor's sign-in step, or a terminal), " +
	"set the editor's API key setting, or set DSH_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY) where the editor starts the bridge"

// authMethod is one entry of authMethods: agent methods leave Type, Args
// and Env out (the schema's default type).
type authMethod struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Type        string            `json:"type,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

// authRequired is ErrAuthRequired with the methods the client was
// offered, sent as the error's data.
type authRequired struct {
	methods []authMethod
	why     error // the store's failure, when it is not just empty
}

func (e authRequired) Error() string {
	if e.why != nil {
		return fmt.Sprintf("%v: %v; %s", ErrAuthRequired, e.why, signInHelp)
	}
	return fmt.Sprintf("%v: %s", ErrAuthRequired, signInHelp)
}

func (e authRequired) Unwrap() error { return ErrAuthRequired }

// WireData makes the offered methods the error's data (acp.DataError).
func (e authRequired) WireData() any { return map[string]any{"authMethods": e.methods} }

// terminalAuth reports whether the client runs terminal auth methods:
// `auth.terminal: true`, or the older `_meta["terminal-auth"]: true`.
func (c clientCapabilities) terminalAuth() bool {
	return c.Auth.Terminal || c.Meta["terminal-auth"] == true
}

// executable is this process's binary.
var executable = sync.OnceValue(func() string {
	p, err := os.Executable()
	if err != nil {
		return "dsh-bridge"
	}
	return p
})

// loginCommand is the program the older terminal-auth `_meta` names:
// Config.Self, else this process's binary.
func (s *Server) loginCommand() string {
	if s.cfg.Self != "" {
		return s.cfg.Self
	}
	return executable()
}

// authMethods are the methods offered to a client with caps (self runs
// the terminal one): the terminal one first when it can run it, then the
// agent one.
func authMethods(caps clientCapabilities, self string) []authMethod {
	var ms []authMethod
	if caps.terminalAuth() {
		t := authMethod{
			ID:          AuthTerminal,
			Name:        "Sign in with an API key",
			Description: "Runs `dsh-bridge login` in a terminal: it asks for a DeepSeek (or other OpenAI-compatible) key, checks it and stores it",
			Type:        "terminal",
			Args:        []string{"login"},
		}
		if caps.Meta["terminal-auth"] == true {
			t.Meta = map[string]any{"terminal-auth": map[string]any{"command": self, "args": []string{"login"}, "label": "dsh-bridge login"}}
		}
		ms = append(ms, t)
	}
	return append(ms, authMethod{
		ID:          AuthAgent,
		Name:        "API key",
		Description: "Uses DSH_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY), else the key `dsh-bridge login` stored",
	})
}

// requireKey returns nil when sessions can reach a model; else the
// auth_required error. Without a key it asks Config.SignIn again.
func (s *Server) requireKey() error {
	s.signIn.Lock()
	defer s.signIn.Unlock()
	if s.cfg.Model != nil || !errors.Is(s.cfg.ModelErr, model.ErrNoAPIKey) {
		return nil
	}
	var why error
	if s.cfg.SignIn != nil {
		c, err := s.cfg.SignIn()
		if err == nil {
			s.cfg.Model, s.cfg.ModelErr = c, nil
			s.log.Info("signed in with a stored API key")
			return nil
		}
		if !errors.Is(err, model.ErrNoAPIKey) {
			why = err
		}
	}
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	return authRequired{methods: authMethods(caps, s.loginCommand()), why: why}
}

type authenticateParams struct {
	MethodID string `json:"methodId"`
}

// authenticate succeeds for a method the bridge offers when a key exists
// (or none is needed); -32602 for any other id.
func (s *Server) authenticate(_ context.Context, p authenticateParams) (struct{}, error) {
	if p.MethodID != AuthAgent && p.MethodID != AuthTerminal {
		return struct{}{}, acp.InvalidParams("authenticate: unknown methodId %q (this agent offers %q and %q)", p.MethodID, AuthAgent, AuthTerminal)
	}
	return struct{}{}, s.requireKey()
}
