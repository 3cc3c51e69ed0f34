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
	if !ss.caps.Terminal {
		return h.LocalHost.Start(ctx, c)
	}
	var res struct {
		TerminalID string `json:"terminalId"`
	}
	params := map[string]any{"sessionId": ss.id, "command": tools.Shell(), "args": []string{"-c", c.Script},
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
	p := &editorProcess{session: ss, id: res.TerminalID, cmd: c, done: make(chan struct{})}
	go p.run()
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
	stop    context.CancelFunc
	mu      sync.Mutex
}

func (p *editorProcess) call(ctx context.Context, method string, result any) error {
	return p.session.srv.conn.Call(ctx, method, map[string]any{"sessionId": p.session.id, "terminalId": p.id}, result)
}

// run waits for the command, collects its output, and releases the
// terminal — on every path.
func (p *editorProcess) run() {
	defer close(p.done)
	life := p.session.srv.life
	ctx, cancel := context.WithCancel(life)
	p.mu.Lock()
	p.stop = cancel
	p.mu.Unlock()
	defer cancel()
	var exit struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	}
	if err := p.call(ctx, "terminal/wait_for_exit", &exit); err != nil {
		p.status = tools.ExitStatus{Code: -1, Err: err}
	}
	bg, cancelBG := context.WithTimeout(life, 10*time.Second)
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
	_ = p.call(bg, "terminal/release", &released)
	switch {
	case p.status.Err != nil:
	case exit.Signal != nil && *exit.Signal != "":
		p.status.Signal = *exit.Signal
	case exit.ExitCode != nil:
		p.status.Code = *exit.ExitCode
	}
}

func (p *editorProcess) Wait() tools.ExitStatus { <-p.done; return p.status }

// Kill asks the editor to kill the command; wait_for_exit then returns and
// the terminal is released.
func (p *editorProcess) Kill() {
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(p.session.srv.life, 10*time.Second)
		defer cancel()
		var res any
		if err := p.call(ctx, "terminal/kill", &res); err != nil {
			p.mu.Lock()
			if p.stop != nil {
				p.stop() // the editor did not answer: stop waiting for it
			}
			p.mu.Unlock()
		}
	})
}

func (p *editorProcess) TerminalID() string { return p.id }
