package pipeline

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func postDecides(p *Pipeline, d PostDecision) {
	p.OnPostExecute(nil, func(context.Context, registry.Execution, registry.Result, func() (PostDecision, error)) (PostDecision, error) {
		return d, nil
	})
}

// metaTool returns a value with presentation meta and one deferred context.
func metaTool(e *env, fail bool) {
	e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
		run.DeferContext(ctxMsg("deferred"))
		if fail {
			return jsonv.Value{}, errors.New("tool failed")
		}
		return jsonv.MustParse(`"v"`), nil
	}, func(t *registry.Tool) {
		t.Output.PresentationMeta = func(_, v jsonv.Value) (jsonv.Value, error) { return jsonv.MustParse(`{"m":` + v.String() + `}`), nil }
	})
}

func TestPost_Decisions(t *testing.T) {
	feedback := []card.Content{card.Text("line one"), card.Image("AAAA", "image/png"), card.Text("line two")}
	for _, tc := range []struct {
		name     string
		fail     bool
		decision PostDecision
		check    func(t *testing.T, r registry.Result)
	}{
		{"accept unchanged, contexts appended", false, PostDecision{AdditionalContexts: []registry.ContextMessage{ctxMsg("post")}}, func(t *testing.T, r registry.Result) {
			wantSuccess(t, r)
			if text(r) != `value "v"` || !slices.Equal(contextTexts(r), []string{"deferred", "post"}) {
				t.Errorf("content %q contexts %v", text(r), contextTexts(r))
			}
		}},
		{"accept content keeps value and meta", false, AcceptContent([]card.Content{card.Text("replaced")}), func(t *testing.T, r registry.Result) {
			wantSuccess(t, r)
			if text(r) != "replaced" || r.Value.String() != `"v"` || r.Meta.String() != `{"m":"v"}` {
				t.Errorf("got %q %s %s", text(r), r.Value, r.Meta)
			}
		}},
		{"accept content on a failure keeps the error", true, AcceptContent([]card.Content{card.Text("friendlier")}), func(t *testing.T, r registry.Result) {
			wantFailure(t, r, "tool failed", "")
			if text(r) != "friendlier" {
				t.Errorf("content %q", text(r))
			}
		}},
		{"accept value recomputes content and meta", false, AcceptValue(jsonv.MustParse(`"w"`)), func(t *testing.T, r registry.Result) {
			wantSuccess(t, r)
			if text(r) != `value "w"` || r.Meta.String() != `{"m":"w"}` || !slices.Equal(contextTexts(r), []string{"deferred"}) {
				t.Errorf("got %q meta %s contexts %v", text(r), r.Meta, contextTexts(r))
			}
		}},
		{"accept invalid value", false, AcceptValue(jsonv.Value{}), func(t *testing.T, r registry.Result) {
			wantFailure(t, r, `tool "t" returned invalid output: value is not lossless JSON`, registry.CodeInvalidToolOutput)
		}},
		{"value on a failed result", true, AcceptValue(jsonv.MustParse(`1`)), func(t *testing.T, r registry.Result) {
			wantFailure(t, r, "tools/post-execute cannot replace the value of a failed result", "")
		}},
		{"both value and content", false, PostDecision{ReplaceValue: true, Value: jsonv.MustParse(`1`), ReplaceContent: true}, func(t *testing.T, r registry.Result) {
			wantFailure(t, r, "tools/post-execute accept decision cannot replace both value and content", "")
		}},
		{"block derives the message and drops deferred contexts", false, PostDecision{Block: true, Feedback: feedback, AdditionalContexts: []registry.ContextMessage{ctxMsg("from block")}}, func(t *testing.T, r registry.Result) {
			wantFailure(t, r, "line one\n[image content]\nline two", "")
			if len(r.Content) != 3 || !slices.Equal(contextTexts(r), []string{"from block"}) {
				t.Errorf("content %d contexts %v", len(r.Content), contextTexts(r))
			}
		}},
		{"block with empty feedback", false, Block(nil), func(t *testing.T, r registry.Result) {
			if !r.IsError || r.Error.Message != "tool result blocked by post-execute policy" || len(r.Content) != 0 || r.Value.IsValid() {
				t.Errorf("got %+v", r)
			}
		}},
		{"block with a zero block fails materialization", false, Block([]card.Content{{}}), func(t *testing.T, r registry.Result) {
			wantFailure(t, r, "tool result must be losslessly JSON-serializable", "")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			metaTool(e, tc.fail)
			postDecides(e.p, tc.decision)
			tc.check(t, e.call(context.Background(), "t", `{}`))
		})
	}
	t.Run("value replacement when the tool disappeared", func(t *testing.T) {
		e := newEnv(t)
		var dispose func()
		tool := &registry.Tool{Name: "gone", Parameters: jsonv.MustParse(`{}`), Output: registry.Output{Schema: jsonv.MustParse(`{}`),
			Render: func(_, v jsonv.Value) ([]card.Content, error) { return []card.Content{card.Text(v.String())}, nil }},
			Execute: func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
				dispose()
				return jsonv.NullValue(), nil
			}}
		dispose, _ = e.reg.Register(tool, nil)
		postDecides(e.p, AcceptValue(jsonv.MustParse(`1`)))
		wantFailure(t, e.call(context.Background(), "gone", `{}`), `unknown tool "gone"`, registry.CodeUnknownTool)
	})
	t.Run("post listener gets its own copy", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", value(jsonv.MustParse(`1`)))
		e.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, r registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			r.Content[0] = card.Text("mutated in place")
			return next()
		})
		if r := e.call(context.Background(), "t", `{}`); text(r) != "value 1" {
			t.Errorf("a listener's mutation leaked: %q", text(r))
		}
	})
}

func TestWrapper_Normalization(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wrapper Wrapper
		check   func(t *testing.T, r registry.Result)
	}{
		{"pass-through keeps the minted result", func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			return next(ctx), nil
		}, func(t *testing.T, r registry.Result) {
			wantSuccess(t, r)
			if text(r) != `value "v"` {
				t.Errorf("content %q", text(r))
			}
		}},
		{"authored success counts only through its value", func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			next(ctx)
			return registry.Result{Value: jsonv.MustParse(`"mine"`), Content: []card.Content{card.Text("ignored")}, AdditionalContexts: []registry.ContextMessage{ctxMsg("wrapper")}}, nil
		}, func(t *testing.T, r registry.Result) {
			wantSuccess(t, r)
			if text(r) != `value "mine"` || r.Meta.String() != `{"m":"mine"}` || !slices.Equal(contextTexts(r), []string{"deferred", "wrapper"}) {
				t.Errorf("got %q meta %s contexts %v", text(r), r.Meta, contextTexts(r))
			}
		}},
		{"authored success is re-validated", func(context.Context, registry.Execution, func(context.Context) registry.Result) (registry.Result, error) {
			return registry.Result{Value: jsonv.MustParse(`5`)}, nil
		}, func(t *testing.T, r registry.Result) {
			wantFailure(t, r, `tool "t" returned invalid output: "value" must be a string`, registry.CodeInvalidToolOutput)
		}},
		{"authored failure keeps its error", func(context.Context, registry.Execution, func(context.Context) registry.Result) (registry.Result, error) {
			return registry.Result{IsError: true, Error: &registry.Failure{Message: "retry budget exhausted", Info: &registry.ErrorInfo{Name: "RetryError", Code: "RETRY"}}}, nil
		}, func(t *testing.T, r registry.Result) {
			wantFailure(t, r, "retry budget exhausted", "RETRY")
			if text(r) != "Error: retry budget exhausted" {
				t.Errorf("content %q", text(r))
			}
		}},
		{"short-circuit success without calling next", func(context.Context, registry.Execution, func(context.Context) registry.Result) (registry.Result, error) {
			return registry.Result{Value: jsonv.MustParse(`"cached"`)}, nil
		}, func(t *testing.T, r registry.Result) {
			wantSuccess(t, r)
			if text(r) != `value "cached"` {
				t.Errorf("content %q", text(r))
			}
		}},
		{"next returns a normalized failure for a panicking body", nil, nil},
		{"mutating the result from next does not leak", func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			r := next(ctx)
			r.Content[0] = card.Text("tampered")
			return r, nil
		}, func(t *testing.T, r registry.Result) {
			if text(r) != `value "v"` {
				t.Errorf("content %q", text(r))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if tc.wrapper == nil {
				e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) { panic("body boom") })
				var saw registry.Result
				e.p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
					saw = next(ctx)
					return saw, nil
				})
				r := e.call(context.Background(), "t", `{}`)
				if !saw.IsError || saw.Error.Message != "body boom" {
					t.Errorf("wrapper saw %+v", saw)
				}
				wantFailure(t, r, "body boom", "")
				return
			}
			e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
				run.DeferContext(ctxMsg("deferred"))
				return jsonv.MustParse(`"v"`), nil
			}, func(t *registry.Tool) {
				t.Output.Schema = jsonv.MustParse(`{"type":"string"}`)
				t.Output.PresentationMeta = func(_, v jsonv.Value) (jsonv.Value, error) { return jsonv.MustParse(`{"m":` + v.String() + `}`), nil }
			})
			e.p.WrapExecute(nil, tc.wrapper)
			tc.check(t, e.call(context.Background(), "t", `{}`))
		})
	}
	t.Run("nested wrappers run outermost first", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		var rec recorder
		for _, name := range []string{"outer", "inner"} {
			e.p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
				rec.add(name + ">")
				r := next(ctx)
				rec.add("<" + name)
				return r, nil
			})
		}
		e.call(context.Background(), "t", `{}`)
		if got := rec.got(); !slices.Equal(got, []string{"outer>", "inner>", "<inner", "<outer"}) {
			t.Errorf("order %v", got)
		}
	})
}

func TestContexts_DeferAndConclude(t *testing.T) {
	t.Run("deferred contexts keep call order", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
			run.DeferContext(ctxMsg("one"))
			run.DeferContext(ctxMsg("two"))
			return jsonv.NullValue(), nil
		})
		if got := contextTexts(e.call(context.Background(), "t", `{}`)); !slices.Equal(got, []string{"one", "two"}) {
			t.Errorf("contexts %v", got)
		}
	})
	t.Run("deferred contexts survive a tool failure", func(t *testing.T) {
		e := newEnv(t)
		metaTool(e, true)
		if got := contextTexts(e.call(context.Background(), "t", `{}`)); !slices.Equal(got, []string{"deferred"}) {
			t.Errorf("contexts %v", got)
		}
	})
	t.Run("concludeTurn marks a success", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
			run.ConcludeTurn()
			return jsonv.NullValue(), nil
		})
		if r := e.call(context.Background(), "t", `{}`); !r.ConcludesTurn {
			t.Errorf("concludesTurn not set")
		}
	})
	t.Run("concludeTurn never rides a failure", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
			run.ConcludeTurn()
			return jsonv.Value{}, errors.New("failed anyway")
		})
		if r := e.call(context.Background(), "t", `{}`); r.ConcludesTurn {
			t.Errorf("a failure concludes the turn")
		}
	})
	t.Run("concludeTurn survives a replacement but not a block", func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			conclude bool // the tool called ConcludeTurn
			d        PostDecision
			want     bool
		}{
			{"content replaced", true, AcceptContent([]card.Content{card.Text("x")}), true},
			{"value replaced", true, AcceptValue(jsonv.MustParse(`"w"`)), true},
			{"value replaced, the tool did not conclude", false, AcceptValue(jsonv.MustParse(`"w"`)), false},
			{"value replaced by one that is not lossless", true, AcceptValue(jsonv.Value{}), false},
			{"blocked", true, Block(nil), false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t)
				e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
					if tc.conclude {
						run.ConcludeTurn()
					}
					return jsonv.NullValue(), nil
				})
				postDecides(e.p, tc.d)
				if r := e.call(context.Background(), "t", `{}`); r.ConcludesTurn != tc.want {
					t.Errorf("concludesTurn %v, want %v", r.ConcludesTurn, tc.want)
				}
			})
		}
	})
}
