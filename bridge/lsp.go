package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dsh-bridge/dsh-bridge/lsp"
	"github.com/dsh-bridge/dsh-bridge/permission"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
	"github.com/dsh-bridge/dsh-bridge/tools"
)

// startLSP makes the session's language servers' manager (none start
// until a tool touches a file of their language) from the built-ins, the
// user's "lsp" settings and, for a trusted workspace only, the
// workspace's: a language server is a program that runs. It returns nil
// when every server is off; the manager closes with the session.
func (ss *Session) startLSP() tools.Checker {
	layers := []lsp.Settings{ss.readLSPFile(ss.settings.UserFile)}
	if ss.settings.WorkspaceFile != "" {
		if ss.settings.Trusted {
			layers = append(layers, ss.readLSPFile(ss.settings.WorkspaceFile))
		} else if s, _ := readLSPSettings(ss.settings.WorkspaceFile); len(s.Servers) > 0 {
			ss.mcpReport("warning", "This workspace's language servers were not used",
				fmt.Sprintf("%s names %d language server(s), which are programs that run; the workspace is not trusted (add it to trustedWorkspaces in your settings).", ss.settings.WorkspaceFile, len(s.Servers)))
		}
	}
	servers := lsp.Merge(lsp.Builtins(), layers...)
	if len(servers) == 0 {
		return nil
	}
	self := ss.srv.cfg.Self
	if self == "" {
		self, _ = sandbox.Self()
	}
	launch := lsp.Launcher{Supervisor: self, Env: lspEnv(ss.settings.ScrubEnv, ss.sandbox != nil)}
	if ss.sandbox != nil {
		p := ss.sandbox.Profile
		launch.Sandbox, launch.Helper = &p, ss.sandbox.Helper
	}
	m := lsp.New(lsp.Options{Roots: ss.ws.Roots(), Servers: servers, Launch: launch, Log: ss.srv.log, Report: ss.mcpReport})
	ss.disposers = append(ss.disposers, m.Close)
	return m
}

// lspEnv is the servers' environment: the commands' (no API keys, no
// scrubbed variables) and, in the sandbox, their caches (gopls's, Go's
// build cache, TypeScript's typings) in the sandbox's cache folder under
// the temp folder, where they may write.
func lspEnv(scrub []string, sandboxed bool) []string {
	env := tools.ScrubbedEnv(scrub)
	if !sandboxed {
		return env
	}
	dir, err := tools.SandboxCache(os.TempDir())
	if err != nil {
		return env
	}
	return append(env, "XDG_CACHE_HOME="+filepath.Join(dir, "lsp-cache"), "GOCACHE="+filepath.Join(dir, "go-build"))
}

// readLSPFile is one settings file's "lsp" key; a problem is reported
// and leaves the built-ins.
func (ss *Session) readLSPFile(path string) lsp.Settings {
	s, err := readLSPSettings(path)
	if err != nil {
		ss.mcpReport("warning", "Language server settings were ignored", err.Error())
	}
	return s
}

func readLSPSettings(path string) (lsp.Settings, error) {
	if path == "" {
		return lsp.Settings{}, nil
	}
	data, err := permission.ReadConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return lsp.Settings{}, nil
	}
	if err != nil {
		return lsp.Settings{}, err
	}
	var file struct {
		LSP json.RawMessage `json:"lsp"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return lsp.Settings{}, fmt.Errorf("%s: %v", path, err)
	}
	s, err := lsp.ParseSettings(file.LSP)
	if err != nil {
		return lsp.Settings{}, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}
