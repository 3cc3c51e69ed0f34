//go:build !windows

package tools

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// Start implements Host: the script runs under Shell() -c in a new process
// group, so Kill ends everything it started. When the shell exits, whatever
// it left running in its group is killed too (use a background job for
// long-lived processes).
func (h LocalHost) Start(ctx context.Context, c Command) (Process, error) {
	argv := Shell().Argv(c.Script)
	sandboxed := h.Sandboxed(ctx)
	if sandboxed {
		var err error
		if argv, err = sandbox.Wrap(h.Sandbox.Helper, h.Sandbox.Profile, argv); err != nil {
			return nil, err
		}
	}
	attr := &syscall.SysProcAttr{Setpgid: true}
	if sandboxed {
		attr = sandbox.SysProcAttr(h.Sandbox.Profile)
	}
	self := h.supervisor()
	if self != "" {
		// The supervisor leads the group and kills it when we are gone.
		argv, attr = sandbox.Supervised(self, argv), sandbox.SupervisorAttr(attr)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = h.commandEnv(sandboxed)
	cmd.Dir = c.Dir
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	cmd.SysProcAttr = attr
	// Bound the wait for output pipes held open by escaped grandchildren.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &localProcess{cmd: cmd, done: make(chan struct{}), supervised: self != ""}
	go p.wait()
	return p, nil
}

// supervisor is the binary that answers sandbox.SuperviseArg: the sandbox
// helper when there is one, else this executable; "" when unknown (the
// command then runs without a supervisor, and Pdeathsig alone stops only
// its shell).
func (h LocalHost) supervisor() string {
	if h.Sandbox != nil && h.Sandbox.Helper != "" {
		return h.Sandbox.Helper
	}
	self, _ := sandbox.Self()
	return self
}

type localProcess struct {
	cmd        *exec.Cmd
	done       chan struct{}
	status     ExitStatus
	once       sync.Once
	supervised bool // cmd is the supervisor (sandbox.SuperviseArg)
}

func (p *localProcess) wait() {
	err := p.cmd.Wait()
	p.killGroup() // nothing the command started outlives it
	st := ExitStatus{}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			st.Signal = signalName(ws.Signal())
		} else {
			st.Code = ee.ExitCode()
		}
	case errors.Is(err, exec.ErrWaitDelay):
		// Exited; a grandchild held the output open and was killed.
		st.Code = p.cmd.ProcessState.ExitCode()
	default:
		st.Err = err
		st.Code = -1
	}
	p.status = st
	close(p.done)
}

func (p *localProcess) killGroup() {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// supervisorGrace is how long Kill gives a supervisor to end the
// command's tree before the group is killed without it.
const supervisorGrace = 2 * time.Second

// Kill implements Process. A supervisor is asked first (SIGTERM): it
// kills every descendant, those that left the group (setsid) included,
// and then itself; a SIGKILL of the group would end it before it could,
// and leave them running. The group is killed after supervisorGrace if
// the supervisor has not ended by then.
func (p *localProcess) Kill() {
	p.once.Do(func() {
		if !p.supervised || p.cmd.Process == nil || p.cmd.Process.Signal(syscall.SIGTERM) != nil {
			p.killGroup()
			return
		}
		go func() {
			t := time.NewTimer(supervisorGrace)
			defer t.Stop()
			select {
			case <-p.done:
			case <-t.C:
				p.killGroup()
			}
		}()
	})
}

func (p *localProcess) Wait() ExitStatus { <-p.done; return p.status }
func (p *localProcess) TerminalID() string {
	return ""
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT",
		syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGSEGV: "SIGSEGV",
		syscall.SIGABRT: "SIGABRT", syscall.SIGPIPE: "SIGPIPE", syscall.SIGUSR1: "SIGUSR1",
		syscall.SIGUSR2: "SIGUSR2", syscall.SIGALRM: "SIGALRM",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return "SIG" + s.String()
}
