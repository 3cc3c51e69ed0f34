package lsp

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/internal/helperbin"
	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// Launcher is how servers are started: under the supervisor, inside the
// sandbox, with an environment.
type Launcher struct {
	// Supervisor is the binary that answers sandbox.SuperviseArg (this
	// executable): the server and all it starts end with dsh-bridge,
	// whatever ends it. "": no supervisor (the server is only in a
	// process group of its own, killed with the bridge on Linux).
	Supervisor string
	// Sandbox, when set, confines the server as commands are confined
	// (read everywhere but the denied trees, write only where commands
	// may), through the helper binary Helper.
	Sandbox *sandbox.Profile
	Helper  string
	// Env is the servers' environment (nil: this process's).
	Env []string
}

// command is the process of argv, started in dir, not yet started. The
// program is looked up here, on $PATH's trusted absolute folders
// (safepath.LookPath), never by the supervisor where a command could
// have planted one.
func (l Launcher) command(argv []string, dir string) (*exec.Cmd, error) {
	prog := argv[0]
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	prog, err := safepath.LookPath(prog)
	if err != nil {
		return nil, err
	}
	argv = append([]string{prog}, argv[1:]...)
	attr := helperbin.GroupAttr()
	if l.Sandbox != nil && l.Helper != "" {
		wrapped, err := sandbox.Wrap(l.Helper, *l.Sandbox, argv)
		if err == nil { // no kernel sandbox here (Windows): the server runs as commands do
			argv, attr = wrapped, sandbox.SysProcAttr(*l.Sandbox)
		}
	}
	if l.Supervisor != "" {
		argv, attr = sandbox.Supervised(l.Supervisor, argv), sandbox.SupervisorAttr(attr)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = attr
	cmd.Dir = dir
	cmd.Env = l.Env
	cmd.WaitDelay = time2s
	return cmd, nil
}
