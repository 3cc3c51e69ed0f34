package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/tools"
	"github.com/dsh-bridge/dsh-bridge/views"
)

type callIDKey struct{}

// callIDWrapper puts the call id into the context the tool body receives,
// so the host can tie an editor terminal to its tool call.
func callIDWrapper(ctx context.Context, exec registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
	return next(context.WithValue(ctx, callIDKey{}, exec.CallID)), nil
}

var _ pipeline.Wrapper = callIDWrapper

// terminalOutputLimit bounds what the editor keeps of a command's output.
const terminalOutputLimit = 1 << 20

// Start runs a command in an editor terminal when the client advertised
// `terminal` (and locally otherwise). The terminal is embedded in the tool
// call at once, so the person watches it live; it is always released once
// the command has ended.
func (h *editorHost) Start(ctx context.Context, c tools.Command) (tools.Process, error) {
	ss := h.session
	ss.ckpt.BeforeCommand()
	if !ss.caps.Terminal {
		return h.LocalHost.Start(ctx, c)
	}
	var res struct {
		TerminalID string `json:"terminalId"`
	}
	command, args, err := h.LocalHost.TerminalCommand(ctx, c.Script)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"sessionId": ss.id, "command": command, "args": args,
		"cwd": c.Dir, "outputByteLimit": terminalOutputLimit}
	if err := ss.srv.conn.Call(ctx, "terminal/create", params, &res); err != nil {
		return nil, err
	}
	callID, _ := ctx.Value(callIDKey{}).(string)
	if callID != "" {
		ss.mu.Lock()
		if info := ss.calls[callID]; info != nil {
			info.terminalID = res.TerminalID
		}
		ss.mu.Unlock()
		ss.srv.notify(ctx, ss.id, views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: callID,
			Status: views.InProgress, Content: []views.ToolCallContent{{Type: "terminal", TerminalID: res.TerminalID}}})
	}
	wctx, stop := context.WithCancel(ss.srv.life)
	p := &editorProcess{session: ss, id: res.TerminalID, cmd: c, done: make(chan struct{}), stop: stop}
	go p.run(wctx) // owned by p: ends when the wait does (Kill bounds it)
	return p, nil
}

// editorProcess is a command running in an editor terminal.
type editorProcess struct {
	session *Session
	id      string
	cmd     tools.Command
	done    chan struct{}
	status  tools.ExitStatus
	once    sync.Once
	stop    context.CancelFunc // stops waiting for the exit; set before run starts
}

func (p *editorProcess) call(ctx context.Context, method string, result any) error {
	return p.session.srv.conn.Call(ctx, method, map[string]any{"sessionId": p.session.id, "terminalId": p.id}, result)
}

// run waits for the command, collects its output, and releases the
// terminal — on every path.
func (p *editorProcess) run(ctx context.Context) {
	defer close(p.done)
	defer p.stop()
	life := p.session.srv.life
	var exit struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	}
	// The editor may never answer (a buggy client): after a kill, Kill
	// stops this wait, and the calls below get only a short time.
	wait := editorCallTimeout
	if err := p.call(ctx, "terminal/wait_for_exit", &exit); err != nil {
		p.status = tools.ExitStatus{Code: -1, Err: err}
		wait = unresponsiveTimeout
	}
	bg, cancelBG := context.WithTimeout(life, wait)
	defer cancelBG()
	var out struct {
		Output    string `json:"output"`
		Truncated bool   `json:"truncated"`
	}
	if err := p.call(bg, "terminal/output", &out); err == nil && p.cmd.Stdout != nil {
		if out.Truncated {
			out.Output = "[earlier output was truncated by the editor]\n" + out.Output
		}
		_, _ = p.cmd.Stdout.Write([]byte(out.Output))
	}
	var released any
	rctx, cancelR := context.WithTimeout(life, wait) // release gets its own budget
	defer cancelR()
	_ = p.call(rctx, "terminal/release", &released)
	switch {
	case p.status.Err != nil:
	case exit.Signal != nil && *exit.Signal != "":
		p.status.Signal = *exit.Signal
	case exit.ExitCode != nil:
		p.status.Code = *exit.ExitCode
	}
}

func (p *editorProcess) Wait() tools.ExitStatus { <-p.done; return p.status }

// Timeouts of terminal calls: a call the editor answers promptly in
// practice, the same once the editor has shown it does not answer, and
// how long a killed command has to report its exit.
const (
	editorCallTimeout   = 10 * time.Second
	unresponsiveTimeout = 2 * time.Second
	killGrace           = 3 * time.Second
)

// Kill asks the editor to kill the command; wait_for_exit then returns and
// the terminal is released. Whatever the editor does, the process counts
// as ended within about killGrace + 2 × unresponsiveTimeout of the kill
// (plus the kill call's own bound): if no exit is reported by then, the
// bridge stops waiting, and the release that follows gets a short bound.
func (p *editorProcess) Kill() {
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(p.session.srv.life, unresponsiveTimeout)
		var res any
		err := p.call(ctx, "terminal/kill", &res)
		cancel()
		if err != nil {
			p.stop() // the editor did not answer: stop waiting for it
			return
		}
		time.AfterFunc(killGrace, p.stop) // a no-op once the wait has ended
	})
}

func (p *editorProcess) TerminalID() string { return p.id }
