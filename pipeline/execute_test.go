package pipeline

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func TestExecute_Basic(t *testing.T) {
	e := newEnv(t)
	e.tool("echo", nil)
	r := e.call(context.Background(), "echo", `{"x":12345678901234567890}`)
	wantSuccess(t, r)
	if got := r.Value.String(); got != `{"x":12345678901234567890}` {
		t.Errorf("value %s", got)
	}
	if text(r) != `value {"x":12345678901234567890}` {
		t.Errorf("content %q", text(r))
	}
}

func TestExecute_ExecutionIdentity(t *testing.T) {
	e := newEnv(t)
	var seen []registry.Execution
	e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
		seen = append(seen, run.Execution())
		return jsonv.NullValue(), nil
	})
	e.p.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
		seen = append(seen, x)
		return next()
	})
	e.p.Execute(context.Background(), Call{CallID: "a", Name: "t", Scope: e.scope})
	e.p.Execute(context.Background(), Call{CallID: "b", RootCallID: "root", Name: "t", Scope: e.scope})
	if seen[0].Token != seen[1].Token || seen[0].Token.IsZero() {
		t.Errorf("stages of one execution saw different tokens")
	}
	if seen[2].Token == seen[0].Token {
		t.Errorf("two executions shared a token")
	}
	if seen[0].RootCallID != "a" || seen[2].RootCallID != "root" {
		t.Errorf("rootCallId: %q %q", seen[0].RootCallID, seen[2].RootCallID)
	}
	if seen[0].Arguments.String() != "{}" {
		t.Errorf("blank arguments materialized as %s, want {}", seen[0].Arguments)
	}
}

func TestExecute_ArgumentMaterialization(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		ok         bool
	}{
		{"blank is {}", "  ", true},
		{"object", `{"a":1}`, true},
		{"duplicate key", `{"a":1,"a":2}`, false},
		{"negative zero", `{"a":-0}`, false},
		{"not JSON", `{a:1}`, false},
		{"trailing data", `{} x`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.tool("t", nil)
			var pre, finalized int
			e.p.OnPreExecute(nil, func(_ context.Context, _ registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
				pre++
				return next()
			})
			e2 := e.tool("u", nil, func(t *registry.Tool) {
				t.FinalizeContent = func(x registry.Execution, r registry.Result) ([]card.Content, bool) {
					finalized++
					if !tc.ok && x.Arguments.IsValid() {
						return []card.Content{card.Text("arguments should be absent")}, true
					}
					return nil, false
				}
			})
			r := e.call(context.Background(), e2.Name, tc.args)
			if tc.ok {
				wantSuccess(t, r)
				return
			}
			wantFailure(t, r, "tool execution arguments must be losslessly JSON-serializable", "")
			if pre != 0 {
				t.Errorf("pre-execute ran for unmaterializable arguments")
			}
			if finalized != 1 {
				t.Errorf("finalizeContent ran %d times, want 1", finalized)
			}
		})
	}
	t.Run("materialization failure wins over a pre-aborted context", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		wantFailure(t, e.call(ctx, "t", `{`), "tool execution arguments must be losslessly JSON-serializable", "")
	})
}

func TestExecute_InvalidArgsBeforePolicy(t *testing.T) {
	type args struct {
		Path string `json:"path"`
	}
	e := newEnv(t, WithApprover(&approver{outcome: AllowedOnce}))
	var finalized, observed, preCalls int
	tool, err := registry.Define(registry.TypedTool[args, string]{
		Name:    "typed",
		Execute: func(context.Context, args, registry.RunContext) (string, error) { return "ran", nil },
		FinalizeContent: func(registry.Execution, registry.Result) ([]card.Content, bool) {
			finalized++
			return nil, false
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.reg.Register(tool, nil); err != nil {
		t.Fatal(err)
	}
	e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
		preCalls++
		return AskCall("needs a person"), nil
	})
	e.p.OnResult(nil, func(registry.Execution, registry.Result) { observed++ })
	r := e.call(context.Background(), "typed", `{"path":3}`)
	wantFailure(t, r, `invalid arguments: "path" must be a string`, registry.CodeInvalidArgs)
	if r.Error.Info.Name != "ToolArgsError" {
		t.Errorf("info name %q", r.Error.Info.Name)
	}
	if preCalls != 0 {
		t.Errorf("pre-execute (and so a person) was asked about an invalid call")
	}
	if finalized != 1 || observed != 1 {
		t.Errorf("finalized %d observed %d, want 1 and 1", finalized, observed)
	}
	wantSuccess(t, e.call(context.Background(), "typed", `{"path":"/a"}`))
}

func TestExecute_OutputValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fn     execFunc
		mutate func(*registry.Tool)
		want   string
	}{
		{"absent value", value(jsonv.Value{}), nil, `tool "t" returned invalid output: value is not lossless JSON`},
		{"schema mismatch", value(jsonv.MustParse(`1`)), func(t *registry.Tool) { t.Output.Schema = jsonv.MustParse(`{"type":"string"}`) }, `tool "t" returned invalid output: "value" must be a string`},
		{"closed object", value(jsonv.MustParse(`{"a":1,"b":2}`)), func(t *registry.Tool) {
			t.Output.Schema = jsonv.MustParse(`{"type":"object","properties":{"a":{}},"additionalProperties":false}`)
		}, `tool "t" returned invalid output: "value.b" is not a declared property (additionalProperties: false)`},
		{"render fails", value(jsonv.NullValue()), func(t *registry.Tool) {
			t.Output.Render = func(_, _ jsonv.Value) ([]card.Content, error) { return nil, errors.New("no render") }
		}, `tool "t" returned invalid output: output.render failed: no render`},
		{"render panics", value(jsonv.NullValue()), func(t *registry.Tool) {
			t.Output.Render = func(_, _ jsonv.Value) ([]card.Content, error) { panic("render exploded") }
		}, `tool "t" returned invalid output: output.render failed: render exploded`},
		{"render returns a zero block", value(jsonv.NullValue()), func(t *registry.Tool) {
			t.Output.Render = func(_, _ jsonv.Value) ([]card.Content, error) { return []card.Content{{}}, nil }
		}, `tool "t" returned invalid output: output.render returned non-lossless JSON`},
		{"presentationMeta fails", value(jsonv.NullValue()), func(t *registry.Tool) {
			t.Output.PresentationMeta = func(_, _ jsonv.Value) (jsonv.Value, error) { return jsonv.Value{}, errors.New("no meta") }
		}, `tool "t" returned invalid output: output.presentationMeta failed: no meta`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			var mutate []func(*registry.Tool)
			if tc.mutate != nil {
				mutate = append(mutate, tc.mutate)
			}
			e.tool("t", tc.fn, mutate...)
			r := e.call(context.Background(), "t", `{}`)
			wantFailure(t, r, tc.want, registry.CodeInvalidToolOutput)
			if r.Error.Info.Name != "ToolOutputError" {
				t.Errorf("info name %q", r.Error.Info.Name)
			}
		})
	}
}

func TestExecute_PresentationMeta(t *testing.T) {
	e := newEnv(t)
	e.tool("t", value(jsonv.MustParse(`"v"`)), func(t *registry.Tool) {
		t.Output.PresentationMeta = func(args, v jsonv.Value) (jsonv.Value, error) {
			return jsonv.MustParse(`{"shown":` + v.String() + `}`), nil
		}
	})
	top := e.p.Execute(context.Background(), Call{CallID: "a", Name: "t", Scope: e.scope})
	if top.Meta.String() != `{"shown":"v"}` {
		t.Errorf("top-level meta %s", top.Meta)
	}
	nested := e.p.Execute(context.Background(), Call{CallID: "a:code:1", Name: "t", Scope: e.scope, Parent: registry.NewToken()})
	if nested.Meta.IsValid() {
		t.Errorf("nested call got presentation meta %s", nested.Meta)
	}
}

type stringer struct{}

func (stringer) String() string { return "i am a stringer" }

type messager struct{}

func (messager) Message() string { return "object with a message" }

type hostile struct{}

func (hostile) String() string { panic("cannot print me") }

func TestExecute_Errors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   execFunc
		msg  string
		code string
	}{
		{"plain error has no info", failWith(errors.New("disk full")), "disk full", ""},
		{"structured error keeps name and code", failWith(registry.NewError("FsError", "FS_NOT_FOUND", `file "a" not found`)), `file "a" not found`, "FS_NOT_FOUND"},
		{"wrapped structured error", failWith(fmt.Errorf("reading: %w", registry.NewError("FsError", "FS_IO_ERROR", "io"))), "reading: io", "FS_IO_ERROR"},
		{"panic with a string", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic("kaboom") }, "kaboom", ""},
		{"panic with an error", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic(errors.New("bad")) }, "bad", ""},
		{"panic with a structured error", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			panic(registry.NewError("X", "X_CODE", "structured"))
		}, "structured", "X_CODE"},
		{"panic with a map", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			panic(map[string]int{"code": 500})
		}, "map[code:500]", ""},
		{"panic with a stringer", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic(stringer{}) }, "i am a stringer", ""},
		{"panic with a message object", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic(messager{}) }, "object with a message", ""},
		{"panic with an unprintable value", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic(hostile{}) }, "<unprintable thrown value>", ""},
		{"panic with nil-like int", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic(42) }, "42", ""},
		{"invalid UTF-8 message is repaired", failWith(errors.New("bad \xff byte")), "bad \uFFFD byte", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.tool("t", tc.fn)
			r := e.call(context.Background(), "t", `{}`)
			wantFailure(t, r, tc.msg, tc.code)
			if text(r) != "Error: "+tc.msg {
				t.Errorf("content %q", text(r))
			}
		})
	}
}

func TestExecute_UnknownTool(t *testing.T) {
	e := newEnv(t)
	e.tool("t2", nil)
	var preSaw, postSaw string
	e.p.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
		preSaw = x.Name
		return next()
	})
	e.p.OnPostExecute(nil, func(_ context.Context, x registry.Execution, r registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
		postSaw = r.Error.Message
		return next()
	})
	r := e.call(context.Background(), "nope", `{}`)
	wantFailure(t, r, `unknown tool "nope"`, registry.CodeUnknownTool)
	if r.Error.Info.Name != "ToolNotFoundError" || preSaw != "nope" || postSaw != `unknown tool "nope"` {
		t.Errorf("unknown tool did not go through the pipeline: pre %q post %q", preSaw, postSaw)
	}
	t.Run("out of scope is indistinguishable from unknown", func(t *testing.T) {
		other := e.reg.NewScope("other", nil)
		tool := *e.reg.Get("t2", nil)
		tool.Name = "mine2"
		if _, err := e.reg.Register(&tool, other); err != nil {
			t.Fatal(err)
		}
		wantFailure(t, e.call(context.Background(), "mine2", `{}`), `unknown tool "mine2"`, registry.CodeUnknownTool)
	})
}
