package subagent_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/subagent"
)

// nester is a child's model that calls task once, then answers; it keeps
// the tools of each request.
type nester struct {
	mu    sync.Mutex
	tools [][]string
}

func (n *nester) Complete(_ context.Context, req model.Request, h model.Handler) (model.Response, error) {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	n.mu.Lock()
	n.tools = append(n.tools, names)
	n.mu.Unlock()
	conv := req.Conversation()
	if conv[len(conv)-1].Role == "user" {
		tc := model.ToolCall{ID: "n1", Name: subagent.ToolName, Arguments: `{"description":"deeper","prompt":"nest"}`}
		if h.OnToolCall != nil {
			h.OnToolCall(tc)
		}
		return model.Response{ToolCalls: []model.ToolCall{tc}, FinishReason: "tool_calls"}, nil
	}
	return model.Response{Text: "child done", FinishReason: "stop"}, nil
}

// results records each child call's result.
type results struct {
	nopObserver
	mu  sync.Mutex
	got map[string]string
}

func (r *results) ChildCallDone(_ *subagent.Child, tc model.ToolCall, res registry.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got[tc.ID] = blocksOf(res)
}

func nestSetup(t *testing.T, m model.Client, obs subagent.Observer) (*registry.Registry, *pipeline.Pipeline, *registry.Scope) {
	t.Helper()
	reg := registry.New()
	pipe := pipeline.New(reg)
	scope := reg.NewScope("session", nil)
	for _, n := range []string{"read", "edit"} {
		if _, err := reg.Register(tool(t, n), scope); err != nil {
			t.Fatal(err)
		}
	}
	task, err := subagent.Tool(subagent.Deps{
		Registry: reg, Pipeline: pipe, Scope: scope,
		Model:      func(subagent.Agent) subagent.Model { return subagent.Model{Client: m, ID: "m"} },
		System:     func(*registry.Scope, subagent.Agent) string { return "system" },
		ResultText: blocksOf,
		Observer:   obs,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Register(task, scope); err != nil {
		t.Fatal(err)
	}
	return reg, pipe, scope
}

// Children do not nest, by three layers; each test holds one alone.

// TestNesting_TaskHidden: a general child's model is not offered task
// (Agent.Restriction's deny), whatever the other layers do.
func TestNesting_TaskHidden(t *testing.T) {
	m := &nester{}
	_, pipe, scope := nestSetup(t, m, &results{got: map[string]string{}})
	pipe.Execute(context.Background(), pipeline.Call{CallID: "t1", Name: subagent.ToolName, Arguments: []byte(`{"description":"d","prompt":"p"}`), Scope: scope})
	if len(m.tools) == 0 {
		t.Fatal("the child made no request")
	}
	for i, names := range m.tools {
		if slices.Contains(names, subagent.ToolName) {
			t.Errorf("request %d of a general child offers %v", i, names)
		}
		if !slices.Contains(names, "read") {
			t.Errorf("request %d lost the parent's tools: %v", i, names)
		}
	}
}

// TestNesting_Guard: a child's call of task, which its scope does not
// see, is refused readably by the child scope's guard, naming the tools
// it has.
func TestNesting_Guard(t *testing.T) {
	obs := &results{got: map[string]string{}}
	_, pipe, scope := nestSetup(t, &nester{}, obs)
	r := pipe.Execute(context.Background(), pipeline.Call{CallID: "t1", Name: subagent.ToolName, Arguments: []byte(`{"description":"d","prompt":"p"}`), Scope: scope})
	if r.IsError || !strings.Contains(blocksOf(r), "child done") {
		t.Fatalf("the task: %q", blocksOf(r))
	}
	if got := obs.got["t1:task:1"]; !strings.Contains(got, "cannot use task") || !strings.Contains(got, "read") {
		t.Errorf("the child's task call: %q", got)
	}
}

// TestNesting_ErrNested: a task call from any scope but the session's —
// here a child scope that sees task, with no restriction nor guard — is
// refused with ErrNested, and no child starts.
func TestNesting_ErrNested(t *testing.T) {
	m := &nester{}
	reg, pipe, scope := nestSetup(t, m, &results{got: map[string]string{}})
	child := reg.NewScope("child", scope)
	defer child.Dispose()
	r := pipe.Execute(context.Background(), pipeline.Call{CallID: "n1", Name: subagent.ToolName, Arguments: []byte(`{"description":"d","prompt":"p"}`), Scope: child})
	if !r.IsError || !strings.Contains(blocksOf(r), subagent.ErrNested.Error()) {
		t.Errorf("a task from a child scope: %q", blocksOf(r))
	}
	if len(m.tools) != 0 {
		t.Errorf("%d child requests, want none", len(m.tools))
	}
}
