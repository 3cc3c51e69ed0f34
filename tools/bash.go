package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/workspace"
)

// Bash timeouts (contract §4).
const (
	BashDefaultTimeout = 120 * time.Second
	BashMaxTimeout     = 600 * time.Second
)

type bashArgs struct {
	Command         string   `json:"command" desc:"The shell command to run (bash -c)."`
	Description     string   `json:"description" desc:"What the command does, in a few words, for the person watching."`
	TimeoutMs       *float64 `json:"timeoutMs,omitempty" desc:"Timeout in milliseconds (default 120000, at most 600000)."`
	Workdir         string   `json:"workdir,omitempty" desc:"Directory to run in: absolute, or relative to the workspace. Defaults to the workspace."`
	RunInBackground bool     `json:"run_in_background,omitempty" desc:"Start the command as a background job and return its id at once; read its output with job_output."`
	Unsandboxed     bool     `json:"unsandboxed,omitempty" desc:"Run outside the sandbox. Only after a command failed because of the sandbox; the person is always asked first."`
}

type streamValue struct {
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
	SpillPath string `json:"spillPath,omitempty"`
}

type bashValue struct {
	Kind      string       `json:"kind"`
	JobID     string       `json:"jobId,omitempty"`
	ExitCode  *int         `json:"exitCode,omitempty"`
	Signal    *string      `json:"signal,omitempty"`
	TimedOut  bool         `json:"timedOut,omitempty"`
	Aborted   bool         `json:"aborted,omitempty"`
	TimeoutMs int          `json:"timeoutMs,omitempty"`
	Stdout    *streamValue `json:"stdout,omitempty"`
	Stderr    *streamValue `json:"stderr,omitempty"`
}

// bashOutputSpec is the contract's oneOf of a background start and a
// finished foreground run.
func bashOutputSpec() *registry.Spec {
	stream := registry.Object(false, registry.Req("text", registry.String()), registry.Req("truncated", registry.Boolean()), registry.Prop("spillPath", registry.String()))
	return registry.OneOf(
		registry.Object(false, registry.Req("kind", registry.String().Exactly("background")), registry.Req("jobId", registry.String())),
		registry.Object(false,
			registry.Req("kind", registry.String().Exactly("foreground")),
			registry.Req("exitCode", registry.OneOf(registry.Integer(), registry.NullType())),
			registry.Req("signal", registry.OneOf(registry.String(), registry.NullType())),
			registry.Req("timedOut", registry.Boolean()),
			registry.Req("aborted", registry.Boolean()),
			registry.Req("timeoutMs", registry.Integer()),
			registry.Req("stdout", stream), registry.Req("stderr", stream),
		),
	)
}

func streamText(s streamValue) string {
	if !s.Truncated {
		return s.Text
	}
	path := s.SpillPath
	if path == "" {
		path = "(unavailable)"
	}
	return s.Text + "\n[output truncated; full output: " + path + "]"
}

// renderBash shapes a finished run into the text the model sees: stdout, a
// marked stderr section, then the timeout, signal and exit markers, the
// exit marker last. A non-zero exit is reported, not an error.
func renderBash(v foregroundValue) string {
	body := streamText(v.Stdout)
	if errText := streamText(v.Stderr); errText != "" {
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		body += "[stderr]\n" + errText
	}
	if body == "" {
		body = "(no output)"
	}
	var markers []string
	if v.TimedOut {
		markers = append(markers, fmt.Sprintf("[timed out after %dms]", v.TimeoutMs))
	}
	switch {
	case v.Signal != nil:
		markers = append(markers, "[killed by signal: "+*v.Signal+"]")
	case v.ExitCode != nil && *v.ExitCode != 0:
		markers = append(markers, "[exit code: "+strconv.Itoa(*v.ExitCode)+"]")
	}
	if len(markers) == 0 {
		return body
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return body + strings.Join(markers, "\n")
}

// foregroundValue is bashValue's foreground shape with every field present.
type foregroundValue struct {
	Kind      string      `json:"kind"`
	ExitCode  *int        `json:"exitCode"`
	Signal    *string     `json:"signal"`
	TimedOut  bool        `json:"timedOut"`
	Aborted   bool        `json:"aborted"`
	TimeoutMs int         `json:"timeoutMs"`
	Stdout    streamValue `json:"stdout"`
	Stderr    streamValue `json:"stderr"`
}

// Compiled at first use: start-up compiles no regexps.
var (
	signalTail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n\[killed by signal: ([^\]\n]+)\]$`) })
	exitTail   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n\[exit code: (\d+)\]$`) })
)

// parseExitStatus recovers the output and exit status from rendered text:
// the inverse of the final marker; no marker means exit 0.
func parseExitStatus(text string) (output string, exitCode *int, signal string) {
	if m := signalTail().FindStringSubmatchIndex(text); m != nil {
		return text[:m[0]], nil, text[m[2]:m[3]]
	}
	if m := exitTail().FindStringSubmatchIndex(text); m != nil {
		code, _ := strconv.Atoi(text[m[2]:m[3]])
		return text[:m[0]], &code, ""
	}
	zero := 0
	return text, &zero, ""
}

func bashTimeout(a bashArgs) (time.Duration, error) {
	if a.TimeoutMs == nil {
		return BashDefaultTimeout, nil
	}
	if *a.TimeoutMs <= 0 {
		return 0, errors.New("timeoutMs must be a positive number")
	}
	return min(time.Duration(*a.TimeoutMs*float64(time.Millisecond)), BashMaxTimeout), nil
}

// runForeground runs a command to completion, its timeout, or ctx's end.
// Cancellation kills the whole process group and is reported as ABORTED.
func runForeground(ctx context.Context, h Host, spills *spillSet, script, dir string, timeout time.Duration) (foregroundValue, error) {
	out, errOut := collector{spills: spills}, collector{spills: spills}
	proc, err := h.Start(ctx, Command{Script: script, Dir: dir, Stdout: &out, Stderr: &errOut})
	if err != nil {
		return foregroundValue{}, fmt.Errorf("cannot start the command: %w", err)
	}
	done := make(chan ExitStatus, 1)
	go func() { done <- proc.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	v := foregroundValue{Kind: "foreground", TimeoutMs: int(timeout.Milliseconds())}
	var st ExitStatus
	select {
	case st = <-done:
	case <-timer.C:
		v.TimedOut = true
		proc.Kill()
		st = <-done
	case <-ctx.Done():
		proc.Kill()
		<-done
		return foregroundValue{}, registry.NewError("AbortError", registry.CodeAborted, "command aborted")
	}
	if st.Err != nil {
		return foregroundValue{}, fmt.Errorf("command failed to run: %w", st.Err)
	}
	if st.Signal != "" {
		s := st.Signal
		v.Signal = &s
	} else {
		c := st.Code
		v.ExitCode = &c
	}
	v.Stdout.Text, v.Stdout.Truncated, v.Stdout.SpillPath = out.result()
	v.Stderr.Text, v.Stderr.Truncated, v.Stderr.SpillPath = errOut.result()
	return v, nil
}

// sandboxNote is added to the output of a sandboxed command that failed
// with an error the sandbox causes.
const sandboxNote = "[sandbox: this command ran in dsh-bridge's sandbox (writes only inside the workspace and the temp folder, and never to git hooks and config or other files that run code later; no network). " +
	"If it failed because of that, run it again with unsandboxed: true — the person will be asked to approve.]"

// sandboxDenials are the messages commands print when the sandbox refuses
// them.
var sandboxDenials = []string{"Permission denied", "Operation not permitted", "Read-only file system", "Device or resource busy",
	"Invalid cross-device link", "permission denied", "operation not permitted", "read-only file system", "device or resource busy"}

// sandboxer is a Host that can say whether its commands run sandboxed.
type sandboxer interface {
	Sandboxed(ctx context.Context) bool
}

// sandboxed reports whether commands started with ctx on h run in a
// sandbox (false for hosts that cannot tell).
func sandboxed(ctx context.Context, h Host) bool {
	s, ok := h.(sandboxer)
	return ok && s.Sandboxed(ctx)
}

// noteSandbox adds sandboxNote to a sandboxed run whose output shows a
// refusal (whatever its exit status: a later command may have succeeded).
func noteSandbox(v *foregroundValue) {
	for _, m := range sandboxDenials {
		if strings.Contains(v.Stderr.Text, m) || strings.Contains(v.Stdout.Text, m) {
			if v.Stderr.Text != "" && !strings.HasSuffix(v.Stderr.Text, "\n") {
				v.Stderr.Text += "\n"
			}
			v.Stderr.Text += sandboxNote
			return
		}
	}
}

func newBash(h Host, w *workspace.Workspace, jobs *Jobs, spills *spillSet, chk Checker) (*registry.Tool, error) {
	desc := "Run a shell command in the workspace with bash -c and return its output and exit status. A non-zero exit is reported, not an error. Use run_in_background for servers and other long-running commands."
	if Shell().Kind == ShellCmd {
		desc += NoBashNote
	}
	t, err := registry.Define(registry.TypedTool[bashArgs, jsonv.Value]{
		Name:        "bash",
		Description: desc,
		OutputSpec:  bashOutputSpec(),
		Execute: func(ctx context.Context, a bashArgs, _ registry.RunContext) (jsonv.Value, error) {
			switch {
			case strings.TrimSpace(a.Command) == "":
				return jsonv.Value{}, errors.New("command must be a non-empty string")
			case strings.TrimSpace(a.Description) == "":
				return jsonv.Value{}, errors.New("description must be a non-empty string")
			}
			timeout, err := bashTimeout(a)
			if err != nil {
				return jsonv.Value{}, err
			}
			dir := w.Cwd()
			if a.Workdir != "" {
				dir = w.Abs(a.Workdir)
			}
			if info, err := h.Stat(ctx, dir); err != nil || !info.IsDir() {
				return jsonv.Value{}, fsError("FS_NOT_DIRECTORY", fmt.Sprintf("cannot run in %q: not a directory", dir))
			}
			if a.Unsandboxed {
				ctx = Unsandboxed(ctx)
			}
			if a.RunInBackground {
				id, err := jobs.Start(ctx, a.Command, dir)
				if err != nil {
					return jsonv.Value{}, err
				}
				return jsonv.FromGo(bashValue{Kind: "background", JobID: id})
			}
			v, err := runForeground(ctx, h, spills, a.Command, dir, timeout)
			recheck(ctx, chk, h) // the command may have changed files the servers hold
			if err != nil {
				return jsonv.Value{}, err
			}
			if sandboxed(ctx, h) {
				noteSandbox(&v)
			}
			return jsonv.FromGo(v)
		},
		Render: func(_ bashArgs, v jsonv.Value) ([]card.Content, error) {
			if kind, _ := v.Get("kind"); kind.Str() == "background" {
				id, _ := v.Get("jobId")
				return []card.Content{card.Text("started background job " + id.Str())}, nil
			}
			var fg foregroundValue
			if err := v.Decode(&fg); err != nil {
				return nil, err
			}
			return []card.Content{card.Text(renderBash(fg))}, nil
		},
		PresentCall: func(a bashArgs) card.CallView {
			if a.RunInBackground {
				return &card.Generic{Title: a.Command, Kind: card.KindExecute, RawInput: a.Command, Content: []card.Content{card.Text(a.Description)}}
			}
			return &card.Terminal{Title: a.Command, Description: a.Description, Cwd: a.Workdir}
		},
		PresentResult: func(a bashArgs, r registry.ToolResult) card.ResultView {
			if len(r.Content) != 1 || r.Content[0].Type() != card.TypeText {
				return nil
			}
			text := r.Content[0].TextValue()
			if a.RunInBackground || r.IsError {
				return &card.GenericResult{Content: []card.Content{card.Text("```console\n" + strings.TrimRight(text, "\n") + "\n```")}}
			}
			output, code, signal := parseExitStatus(text)
			return &card.TerminalResult{Output: output, ExitCode: code, Signal: signal}
		},
	})
	if err != nil {
		return nil, err
	}
	t.Accesses = func(args jsonv.Value) []registry.Access { return pathAccess(args, "workdir", false) }
	t.Escalation = func(args jsonv.Value) string {
		if u, ok := args.Get("unsandboxed"); ok && u.Bool() {
			return "the command asks to run outside the sandbox"
		}
		return ""
	}
	return t, nil
}
