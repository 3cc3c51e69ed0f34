//go:build windows

package tools

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/winjob"
)

// Start implements Host: the script runs under Shell() in a Job Object
// of its own (internal/winjob), so Kill ends everything it started, and
// so does the end of this process, however it ends. When the shell
// exits, whatever it left running in the job is killed too (use a
// background job for long-lived processes). There is no sandbox on
// Windows: h.Sandbox is not consulted.
func (h LocalHost) Start(ctx context.Context, c Command) (Process, error) {
	sh := Shell()
	argv := sh.Argv(c.Script)
	cmd := exec.Command(argv[0], argv[1:]...)
	if sh.Kind == ShellCmd {
		// cmd.exe reads its command line itself, not by the C runtime's
		// quoting rules that exec would write: /s takes the outer quotes
		// off and runs the rest as written.
		cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `"` + sh.Path + `" /d /s /c "` + c.Script + `"`}
	}
	cmd.Env = h.commandEnv(false)
	cmd.Dir = c.Dir
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	// Bound the wait for output pipes held open by escaped grandchildren.
	cmd.WaitDelay = 2 * time.Second
	job, err := winjob.New()
	if err != nil {
		return nil, err
	}
	if err := job.Start(cmd); err != nil {
		job.Close()
		return nil, err
	}
	p := &jobProcess{cmd: cmd, job: job, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

type jobProcess struct {
	cmd    *exec.Cmd
	job    *winjob.Job
	done   chan struct{}
	status ExitStatus
	once   sync.Once
	killed atomic.Bool
}

func (p *jobProcess) wait() {
	err := p.cmd.Wait()
	_ = p.job.Close() // nothing the command started outlives it
	st := ExitStatus{}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case p.killed.Load():
		st.Signal = "SIGKILL" // as Linux reports a killed command
	case errors.As(err, &ee):
		st.Code = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		st.Code = p.cmd.ProcessState.ExitCode()
	default:
		st.Err = err
		st.Code = -1
	}
	p.status = st
	close(p.done)
}

// Kill implements Process: it ends every process in the command's job.
func (p *jobProcess) Kill() {
	p.once.Do(func() {
		p.killed.Store(true)
		_ = p.job.Kill()
	})
}

func (p *jobProcess) Wait() ExitStatus { <-p.done; return p.status }
func (p *jobProcess) TerminalID() string {
	return ""
}
