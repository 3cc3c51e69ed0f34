package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type execFunc = func(ctx context.Context, args jsonv.Value, run registry.RunContext) (jsonv.Value, error)

// env is a registry and pipeline with the invariant checker attached; the
// checker's verdict is asserted when the test ends.
type env struct {
	t     *testing.T
	reg   *registry.Registry
	p     *Pipeline
	scope *registry.Scope
}

func newEnv(t *testing.T, opts ...Option) *env {
	t.Helper()
	reg := registry.New()
	p := New(reg, opts...)
	inv := newInvariants(p)
	t.Cleanup(func() {
		inv.Close()
		for _, v := range inv.Violations() {
			t.Errorf("invariant: %s", v)
		}
	})
	return &env{t: t, reg: reg, p: p, scope: reg.NewScope("agent", nil)}
}

// tool registers a raw tool with an open output schema whose body is fn
// (nil: return the arguments).
func (e *env) tool(name string, fn execFunc, mutate ...func(*registry.Tool)) *registry.Tool {
	e.t.Helper()
	if fn == nil {
		fn = func(_ context.Context, args jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			return args, nil
		}
	}
	t := &registry.Tool{
		Name:       name,
		Parameters: jsonv.MustParse(`{"type":"object"}`),
		Output: registry.Output{
			Schema: jsonv.MustParse(`{}`),
			Render: func(_, v jsonv.Value) ([]card.Content, error) {
				return []card.Content{card.Text("value " + v.String())}, nil
			},
		},
		Execute: fn,
	}
	for _, m := range mutate {
		m(t)
	}
	if _, err := e.reg.Register(t, nil); err != nil {
		e.t.Fatal(err)
	}
	return t
}

// call executes name with raw arguments in the env's scope.
func (e *env) call(ctx context.Context, name, args string) registry.Result {
	return e.p.Execute(ctx, Call{CallID: "c1", Name: name, Arguments: []byte(args), Scope: e.scope})
}

func value(v jsonv.Value) execFunc {
	return func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { return v, nil }
}

func failWith(err error) execFunc {
	return func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
		return jsonv.Value{}, err
	}
}

func text(r registry.Result) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.TextValue())
	}
	return strings.Join(parts, "|")
}

func contextTexts(r registry.Result) []string {
	var out []string
	for _, c := range r.AdditionalContexts {
		out = append(out, c.Content[0].TextValue())
	}
	return out
}

func ctxMsg(s string) registry.ContextMessage {
	return registry.ContextMessage{Content: []card.Content{card.Text(s)}}
}

// wantFailure asserts a failure's message, code ("" for none) and content.
func wantFailure(t *testing.T, r registry.Result, msg, code string) {
	t.Helper()
	if !r.IsError || r.Error == nil {
		t.Fatalf("got success %s, want failure %q", text(r), msg)
	}
	if r.Error.Message != msg {
		t.Errorf("message %q, want %q", r.Error.Message, msg)
	}
	gotCode := ""
	if r.Error.Info != nil {
		gotCode = r.Error.Info.Code
	}
	if gotCode != code {
		t.Errorf("code %q, want %q", gotCode, code)
	}
	if len(r.Content) == 0 {
		t.Errorf("failure has no content")
	}
	if r.Value.IsValid() || r.ConcludesTurn {
		t.Errorf("failure carries a value or concludesTurn")
	}
}

func wantSuccess(t *testing.T, r registry.Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("got failure %q, want success", r.Error.Message)
	}
}

// recorder collects stage names from any goroutine.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// onState is an OnState that records "index:state" (from any goroutine).
func (r *recorder) onState(i int, st State, _ *registry.Result) {
	r.add(fmt.Sprintf("%d:%v", i, st))
}

// approver is a fake Approver returning a fixed outcome, with a hook.
type approver struct {
	outcome ApprovalOutcome
	hook    func(ctx context.Context, req ApprovalRequest) ApprovalOutcome
	mu      sync.Mutex
	asked   []ApprovalRequest
}

func (a *approver) RequestApproval(ctx context.Context, req ApprovalRequest) ApprovalOutcome {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.hook != nil {
		return a.hook(ctx, req)
	}
	return a.outcome
}

func (a *approver) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func askAll(p *Pipeline) {
	p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
		return AskCall(""), nil
	})
}
