package codemode

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Config tunes run_code. Zero values mean the defaults.
type Config struct {
	MaxParallelSubCalls int           // parallel-safe sub-calls in flight (10)
	Timeout             time.Duration // per run (DefaultTimeout)
	MaxOutputBytes      int           // logs plus result (DefaultMaxOutputBytes)
	// Runner is dsh-code's path; empty means LocateRunner, asked at each
	// run (so that a runner installed later is found).
	Runner string
}

// Observer hears a run's sub-calls (the editor's nested cards, the session
// log). Its methods are called from the run's sub-call lane, in order:
// Started when a sub-call starts (before its pre-execute), State for its
// approval and running states, Committed once with its committed result
// and the durable copy of its content (after the dispatch-log waterfall).
// Calls abandoned in the queue are never started and never reported.
type Observer interface {
	SubCallStarted(outer registry.Execution, call pipeline.Call)
	SubCallState(outer registry.Execution, callID string, s pipeline.State)
	SubCallCommitted(outer registry.Execution, call pipeline.Call, r registry.Result, logged []card.Content)
}

type observerKey struct{}

// WithObserver returns ctx carrying o for the run_code calls made under it.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// DispatchLog is one settled sub-call as the dispatch-log waterfall sees
// it; a listener returns the content to log instead (the durable copy
// only: the program and the model are untouched).
type DispatchLog struct {
	Outer     registry.Execution
	SubCallID string
	Name      string
	IsError   bool
	Content   []card.Content
}

// DispatchLogListener is one link of the tools/code-dispatch-log waterfall.
type DispatchLogListener func(d DispatchLog, next func() []card.Content) ([]card.Content, error)

// RunCode is the run_code transport: its tool definition and its
// dispatch-log waterfall.
type RunCode struct {
	pipe *pipeline.Pipeline
	cfg  Config

	mu  sync.Mutex
	log []*DispatchLogListener
}

// New returns run_code over pipe; install its Tool with
// registry.InstallCodeMode.
func New(pipe *pipeline.Pipeline, cfg Config) *RunCode {
	if cfg.MaxParallelSubCalls <= 0 {
		cfg.MaxParallelSubCalls = 10
	}
	return &RunCode{pipe: pipe, cfg: cfg}
}

func (rc *RunCode) runner() string {
	if rc.cfg.Runner != "" {
		return rc.cfg.Runner
	}
	return LocateRunner()
}

// OnDispatchLog adds a dispatch-log listener; a failing one is contained
// (the original content is logged).
func (rc *RunCode) OnDispatchLog(l DispatchLogListener) (remove func()) {
	entry := &l
	rc.mu.Lock()
	rc.log = append(rc.log, entry)
	rc.mu.Unlock()
	return func() {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if i := slices.Index(rc.log, entry); i >= 0 {
			rc.log = slices.Delete(slices.Clone(rc.log), i, i+1)
		}
	}
}

// shapeLog runs the waterfall, containing failures and panics.
func (rc *RunCode) shapeLog(d DispatchLog) (out []card.Content) {
	rc.mu.Lock()
	listeners := rc.log
	rc.mu.Unlock()
	var step func(i int) []card.Content
	step = func(i int) []card.Content {
		if i == len(listeners) {
			return d.Content
		}
		var got []card.Content
		var err error
		func() {
			defer func() {
				if recover() != nil {
					err = errors.New("dispatch-log listener panicked")
				}
			}()
			got, err = (*listeners[i])(d, func() []card.Content { return step(i + 1) })
		}()
		if err != nil || got == nil {
			return step(i + 1)
		}
		return got
	}
	return step(0)
}

type runCodeArgs struct {
	Code        string `json:"code" desc:"The program: the body of an async TypeScript function. Top-level await and return work."`
	Description string `json:"description" desc:"What the program does, in 5 to 10 words, in the active voice (the editor shows it), for example \"Read both configs and compare their ports\"."`
}

type runCodeValue struct {
	Logs   []string    `json:"logs"`
	Result jsonv.Value `json:"result,omitzero"`
}

const description = "Run a TypeScript program that calls the available tools. Write the body of an async function " +
	"(erasable TypeScript; top-level await and return work) and call tools as `await tools.<name>(args)`, " +
	"as the tool declarations in the system prompt describe. Only what the program logs with console.log " +
	"or returns comes back to you, so return just what you need."

// Tool returns the run_code definition.
func (rc *RunCode) Tool() (*registry.Tool, error) {
	t, err := registry.Define(registry.TypedTool[runCodeArgs, runCodeValue]{
		Name:        registry.RunCodeName,
		Description: description,
		OutputSpec: registry.Object(false,
			registry.Req("logs", registry.Array(registry.String())),
			registry.Prop("result", registry.JSON()),
		),
		Execute: rc.execute,
		Render: func(_ runCodeArgs, v runCodeValue) ([]card.Content, error) {
			parts := []string{strings.Join(v.Logs, "\n")}
			if v.Result.IsValid() {
				parts = append(parts, renderResult(v.Result))
			}
			parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
			if len(parts) == 0 {
				return []card.Content{card.Text("(run_code completed with no output)")}, nil
			}
			return []card.Content{card.Text(strings.Join(parts, "\n"))}, nil
		},
		PresentCall: func(a runCodeArgs) card.CallView {
			return &card.Generic{Title: a.Description, Kind: card.KindExecute, RawInput: a.Code, Lang: "typescript"}
		},
	})
	if err != nil {
		return nil, err
	}
	// Its sub-calls are each judged by the permission policy; the program
	// itself has no effect to ask about.
	t.Effect = registry.EffectTransport
	return t, nil
}

// execute runs one program: its sub-calls go through a lane of the
// pipeline, each a nested execution of the outer call.
func (rc *RunCode) execute(ctx context.Context, a runCodeArgs, run registry.RunContext) (runCodeValue, error) {
	if strings.TrimSpace(a.Description) == "" {
		return runCodeValue{}, errors.New("invalid description: expected a non-empty string")
	}
	outer := run.Execution()
	obs, _ := ctx.Value(observerKey{}).(Observer)
	runCtx, settle := context.WithCancelCause(ctx)
	defer settle(nil)
	s := &subCalls{rc: rc, outer: outer, run: run, obs: obs, ctx: runCtx}
	s.lane = rc.pipe.NewLane(runCtx, pipeline.LaneOptions{
		MaxParallel: rc.cfg.MaxParallelSubCalls,
		// Queued calls start only once the program has handed control
		// back: one that returns without awaiting them never starts them.
		HoldUntilYield: true,
		OnStart: func(c pipeline.Call) {
			if obs != nil {
				obs.SubCallStarted(outer, c)
			}
		},
		OnState: func(id string, st pipeline.State) {
			if obs != nil {
				obs.SubCallState(outer, id, st)
			}
		},
	})
	var names []string
	for _, sc := range rc.pipe.Registry().Schemas(outer.Scope) {
		if sc.Name != registry.RunCodeName {
			names = append(names, sc.Name)
		}
	}
	out := Run(runCtx, rc.runner(), Program{Code: a.Code, Names: names, Dispatch: s.dispatch, Yield: s.lane.Yield, Timeout: rc.cfg.Timeout, MaxOutputBytes: rc.cfg.MaxOutputBytes})
	// The run is over: nothing more starts; in-flight calls commit.
	settle(errRunSettled)
	s.lane.Close()
	if out.Err != nil {
		msg := out.Err.Error()
		if len(out.Logs) > 0 {
			msg += "\nCaptured output:\n" + strings.Join(out.Logs, "\n")
		}
		return runCodeValue{}, &registry.Error{Name: "CodeRunFailedError", Code: registry.CodeCodeRunFailed, Message: msg, Err: registry.ErrCodeRunFailed}
	}
	logs := out.Logs
	if logs == nil {
		logs = []string{}
	}
	return runCodeValue{Logs: logs, Result: out.Result}, nil
}

var errRunSettled = errors.New("run_code settled")

// subCalls is one run's binding side: numbering, the lane, and what
// happens to calls once the run is over.
type subCalls struct {
	rc    *RunCode
	outer registry.Execution
	run   registry.RunContext
	obs   Observer
	ctx   context.Context
	lane  *pipeline.Lane

	mu sync.Mutex
	n  int
}

// over returns why the run is over ("" while it runs): run_code settled,
// or the turn was cancelled (the cause of the run's context).
func (s *subCalls) over() string {
	if s.ctx.Err() == nil {
		return ""
	}
	if errors.Is(context.Cause(s.ctx), errRunSettled) {
		return errRunSettled.Error()
	}
	return abortMessage(s.ctx)
}

// dispatch is the runtime's Dispatch: one binding call becomes sub-call
// <outer>:code:<n> in the lane.
func (s *subCalls) dispatch(name string, args jsonv.Value, settle Settle) {
	if r := s.over(); r != "" {
		settle(jsonv.Value{}, "run_code run is over ("+r+"); "+name+" not dispatched", false)
		return
	}
	s.mu.Lock()
	s.n++
	id := s.outer.CallID + ":code:" + strconv.Itoa(s.n)
	s.mu.Unlock()
	call := pipeline.Call{CallID: id, RootCallID: s.outer.RootCallID, Name: name, Args: args, Scope: s.outer.Scope, Parent: s.outer.Token}
	s.lane.Submit(call, func(r registry.Result, abandoned bool) {
		if abandoned {
			settle(jsonv.Value{}, "run_code run is over ("+s.over()+"); "+name+" tool call abandoned", false)
			return
		}
		s.commit(call, r)
		if reason := s.over(); reason != "" {
			settle(jsonv.Value{}, "run_code run is over ("+reason+"); "+name+" result discarded", false)
			return
		}
		if r.IsError {
			settle(jsonv.Value{}, r.Error.Message, false)
			return
		}
		settle(r.Value, "", true)
	})
}

// commit forwards what crosses the boundary onto the outer call (contexts,
// images, concludeTurn) and reports the sub-call with its durable copy.
func (s *subCalls) commit(call pipeline.Call, r registry.Result) {
	for _, c := range r.AdditionalContexts {
		s.run.DeferContext(c)
	}
	if !r.IsError {
		var images []card.Content
		for _, c := range r.Content {
			if c.Type() == card.TypeImage {
				images = append(images, c)
			}
		}
		if len(images) > 0 {
			s.run.DeferContext(registry.ContextMessage{Content: images, Source: "plugin:tools-code-mode"})
		}
		if r.ConcludesTurn {
			s.run.ConcludeTurn()
		}
	}
	logged := s.rc.shapeLog(DispatchLog{Outer: s.outer, SubCallID: call.CallID, Name: call.Name, IsError: r.IsError, Content: r.Content})
	if s.obs != nil {
		s.obs.SubCallCommitted(s.outer, call, r, logged)
	}
}
