package subagent_test

import (
	"context"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/subagent"
)

// readOnce answers a conversation that ends with the user's message with
// one read call, and any other with a text: a child's whole task.
type readOnce struct{}

func (readOnce) Complete(_ context.Context, req model.Request, h model.Handler) (model.Response, error) {
	conv := req.Conversation()
	if conv[len(conv)-1].Role == "user" {
		tc := model.ToolCall{ID: "c1", Name: "read", Arguments: `{}`}
		if h.OnToolCall != nil {
			h.OnToolCall(tc)
		}
		return model.Response{ToolCalls: []model.ToolCall{tc}, FinishReason: "tool_calls"}, nil
	}
	return model.Response{Text: "the answer", FinishReason: "stop"}, nil
}

type nopObserver struct{}

func (nopObserver) ChildStarted(*subagent.Child)                                   {}
func (nopObserver) ChildCall(*subagent.Child, model.ToolCall)                      {}
func (nopObserver) ChildState(*subagent.Child, string, pipeline.State)             {}
func (nopObserver) ChildCallDone(*subagent.Child, model.ToolCall, registry.Result) {}
func (nopObserver) ChildUsage(*subagent.Child, string, model.Usage)                {}
func (nopObserver) ChildEnded(*subagent.Child, subagent.Outcome)                   {}

func benchSetup(b *testing.B) (*registry.Registry, *pipeline.Pipeline, *registry.Scope) {
	reg := registry.New()
	pipe := pipeline.New(reg)
	scope := reg.NewScope("session", nil)
	for _, n := range []string{"read", "grep", "glob", "web_fetch", "edit", "bash"} {
		if _, err := reg.Register(tool(b, n), scope); err != nil {
			b.Fatal(err)
		}
	}
	task, err := subagent.Tool(subagent.Deps{
		Registry: reg, Pipeline: pipe, Scope: scope,
		Model:      func(subagent.Agent) subagent.Model { return subagent.Model{Client: readOnce{}, ID: "m"} },
		System:     func(*registry.Scope, subagent.Agent) string { return "system" },
		ResultText: func(r registry.Result) string { return "result" },
		Observer:   nopObserver{},
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := reg.Register(task, scope); err != nil {
		b.Fatal(err)
	}
	return reg, pipe, scope
}

// BenchmarkTaskOverhead is what a task costs beyond its child's model
// requests and calls: "task" runs one task whose child reads once and
// answers (two requests, one call); "direct" makes the same two requests
// and the same call in the session's own scope, as the parent's loop
// would. Their difference is the task's overhead (a scope, its
// restriction and guard, the child's history, the task's own pipeline
// pass); the model answers at once, so nothing else is in either.
func BenchmarkTaskOverhead(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		reg, pipe, scope := benchSetup(b)
		ctx := context.Background()
		schemas := reg.ModelSchemas(scope)
		tools := make([]model.Tool, len(schemas))
		for i, s := range schemas {
			tools[i] = model.Tool{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
		}
		b.ReportAllocs()
		for b.Loop() {
			var hist model.History
			hist.Append(model.Message{Role: "user", Content: "task"})
			resp, _ := readOnce{}.Complete(ctx, model.Request{System: "system", History: &hist, Tools: tools}, model.Handler{})
			calls := []pipeline.Call{{CallID: resp.ToolCalls[0].ID, Name: "read", Arguments: []byte(resp.ToolCalls[0].Arguments), Scope: scope}}
			res := pipe.ExecuteBatch(ctx, calls, pipeline.BatchOptions{})
			hist.Append(model.Message{Role: "assistant", ToolCalls: resp.ToolCalls}, model.Message{Role: "tool", ToolCallID: "c1", Content: blocksOf(res[0])})
			if resp, _ = (readOnce{}).Complete(ctx, model.Request{System: "system", History: &hist, Tools: tools}, model.Handler{}); resp.Text != "the answer" {
				b.Fatal(resp.Text)
			}
		}
	})
	b.Run("task", func(b *testing.B) {
		_, pipe, scope := benchSetup(b)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			r := pipe.Execute(ctx, pipeline.Call{CallID: "t1", Name: subagent.ToolName, Arguments: []byte(`{"description":"d","prompt":"task"}`), Scope: scope})
			if r.IsError {
				b.Fatal(blocksOf(r))
			}
		}
	})
}

func blocksOf(r registry.Result) string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].TextValue()
}
