package pipeline

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func TestPolicy_DenyAskApproval(t *testing.T) {
	for _, tc := range []struct {
		name       string
		approver   *approver // nil: none mounted
		agentless  bool
		decision   PreDecision
		wantMsg    string // "" means success
		wantAsked  int
		wantRanRun bool
	}{
		{"deny", nil, false, DenyCall("not here"), "not here", 0, false},
		{"ask without approver, no reason", nil, false, AskCall(""), `tool "t" requires approval (not yet supported)`, 0, false},
		{"ask without approver keeps reason", nil, false, AskCall("edits need a person"), "edits need a person", 0, false},
		{"ask for an agent-less call", &approver{outcome: AllowedOnce}, true, AskCall(""), `tool "t" requires approval, but the call has no agent to route it through`, 0, false},
		{"allowed once", &approver{outcome: AllowedOnce}, false, AskCall(""), "", 1, true},
		{"rejected", &approver{outcome: Rejected}, false, AskCall(""), `the user rejected tool "t"`, 1, false},
		{"cancelled", &approver{outcome: Cancelled}, false, AskCall(""), `approval for tool "t" was cancelled`, 1, false},
		{"unavailable", &approver{outcome: Unavailable}, false, AskCall(""), `tool "t" requires approval, but no approval channel is available`, 1, false},
		{"approver panics is unavailable", &approver{hook: func(context.Context, ApprovalRequest) ApprovalOutcome { panic("channel broke") }}, false, AskCall(""), `tool "t" requires approval, but no approval channel is available`, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.approver != nil {
				opts = append(opts, WithApprover(tc.approver))
			}
			e := newEnv(t, opts...)
			ran := false
			e.tool("t", func(ctx context.Context, a jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
				ran = true
				return a, nil
			})
			e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
				return tc.decision, nil
			})
			call := Call{CallID: "c", Name: "t", Scope: e.scope}
			if tc.agentless {
				call.Scope = nil
			}
			r := e.p.Execute(context.Background(), call)
			if tc.wantMsg == "" {
				wantSuccess(t, r)
			} else {
				wantFailure(t, r, tc.wantMsg, "")
			}
			if ran != tc.wantRanRun {
				t.Errorf("body ran = %v, want %v", ran, tc.wantRanRun)
			}
			if tc.approver != nil && tc.approver.count() != tc.wantAsked {
				t.Errorf("approver asked %d times, want %d", tc.approver.count(), tc.wantAsked)
			}
		})
	}
}

func TestPolicy_ApprovalRequestAndOutcomes(t *testing.T) {
	a := &approver{outcome: AllowedOnce}
	e := newEnv(t, WithApprover(a))
	e.tool("t", nil)
	e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
		return AskCall("writes outside the workspace"), nil
	})
	e.p.Execute(context.Background(), Call{CallID: "call-9", Name: "t", Scope: e.scope})
	req := a.asked[0]
	if req.ToolName != "t" || req.CallID != "call-9" || req.Reason != "writes outside the workspace" || req.Exec.Scope != e.scope {
		t.Errorf("request %+v", req)
	}
	t.Run("unknown outcome is a final unreachable error", func(t *testing.T) {
		e := newEnv(t, WithApprover(&approver{outcome: 99}))
		e.tool("t", nil)
		askAll(e.p)
		posts := 0
		e.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			posts++
			return next()
		})
		r := e.call(context.Background(), "t", `{}`)
		if !r.IsError || r.Error.Message != "unreachable: unknown approval outcome 99" || posts != 0 {
			t.Errorf("got %+v, posts %d", r.Error, posts)
		}
	})
	t.Run("guards still run after approval", func(t *testing.T) {
		e := newEnv(t, WithApprover(&approver{outcome: AllowedOnce}))
		e.tool("t", nil)
		askAll(e.p)
		e.p.AddGuard(nil, func(registry.Execution) string { return "guard says no" })
		wantFailure(t, e.call(context.Background(), "t", `{}`), "guard says no", "")
	})
}

func TestPolicy_ListenerFailuresAreFinal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*Pipeline)
		msg   string
	}{
		{"pre-execute error", func(p *Pipeline) {
			p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
				return PreDecision{}, errors.New("policy store down")
			})
		}, "policy store down"},
		{"pre-execute panic", func(p *Pipeline) {
			p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
				panic("pre boom")
			})
		}, "pre boom"},
		{"guard panic", func(p *Pipeline) {
			p.AddGuard(nil, func(registry.Execution) string { panic("guard boom") })
		}, "guard boom"},
		{"wrapper error", func(p *Pipeline) {
			p.WrapExecute(nil, func(context.Context, registry.Execution, func(context.Context) registry.Result) (registry.Result, error) {
				return registry.Result{}, errors.New("wrapper broke")
			})
		}, "wrapper broke"},
		{"wrapper panic after next", func(p *Pipeline) {
			p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
				next(ctx)
				panic("wrapper boom")
			})
		}, "wrapper boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.tool("t", nil)
			tc.setup(e.p)
			posts := 0
			e.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
				posts++
				return next()
			})
			wantFailure(t, e.call(context.Background(), "t", `{}`), tc.msg, "")
			if posts != 0 {
				t.Errorf("post-execute ran for a final result")
			}
		})
	}
	t.Run("post-execute failure becomes the result", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		e.p.OnPostExecute(nil, func(context.Context, registry.Execution, registry.Result, func() (PostDecision, error)) (PostDecision, error) {
			panic("post boom")
		})
		wantFailure(t, e.call(context.Background(), "t", `{}`), "post boom", "")
	})
}

func TestPolicy_DenialsGoThroughPost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*Pipeline)
	}{
		{"deny", func(p *Pipeline) {
			p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
				return DenyCall("no"), nil
			})
		}},
		{"guard", func(p *Pipeline) { p.AddGuard(nil, func(registry.Execution) string { return "no" }) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.tool("t", nil)
			tc.setup(e.p)
			var saw string
			e.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, r registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
				saw = r.Error.Message
				return next()
			})
			r := e.call(context.Background(), "t", `{}`)
			wantFailure(t, r, "no", "")
			if saw != "no" || text(r) != "Error: no" {
				t.Errorf("post saw %q, content %q", saw, text(r))
			}
		})
	}
}

func TestPolicy_Guards(t *testing.T) {
	t.Run("monotonic: a later allow cannot lift a guard", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		e.p.AddGuard(nil, func(registry.Execution) string { return "blocked by guard" })
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			return AllowCall(), nil
		})
		wantFailure(t, e.call(context.Background(), "t", `{}`), "blocked by guard", "")
	})
	t.Run("order: global, then farthest to nearest scope", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		child := e.reg.NewScope("child", e.scope)
		var order []string
		g := func(name string) Guard {
			return func(registry.Execution) string { order = append(order, name); return "" }
		}
		e.p.AddGuard(child, g("child"))
		e.p.AddGuard(e.scope, g("parent"))
		e.p.AddGuard(nil, g("global"))
		e.p.Execute(context.Background(), Call{CallID: "c", Name: "t", Scope: child})
		if !slices.Equal(order, []string{"global", "parent", "child"}) {
			t.Errorf("order %v", order)
		}
		order = nil
		e.p.Execute(context.Background(), Call{CallID: "c", Name: "t"})
		if !slices.Equal(order, []string{"global"}) {
			t.Errorf("agent-less call ran scoped guards: %v", order)
		}
	})
	t.Run("first reason wins", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		e.p.AddGuard(nil, func(registry.Execution) string { return "first" })
		e.p.AddGuard(nil, func(registry.Execution) string { return "second" })
		wantFailure(t, e.call(context.Background(), "t", `{}`), "first", "")
	})
	t.Run("live iteration: a guard added during the pass runs", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		added := false
		e.p.AddGuard(nil, func(registry.Execution) string {
			if !added {
				added = true
				e.p.AddGuard(nil, func(registry.Execution) string { return "late guard" })
			}
			return ""
		})
		wantFailure(t, e.call(context.Background(), "t", `{}`), "late guard", "")
	})
	t.Run("removed guard no longer runs", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		remove := e.p.AddGuard(nil, func(registry.Execution) string { return "no" })
		remove()
		wantSuccess(t, e.call(context.Background(), "t", `{}`))
	})
}

func TestPolicy_WaterfallOrderAndScoping(t *testing.T) {
	t.Run("first registered runs first and can short-circuit", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		var order []string
		e.p.OnPreExecute(nil, func(_ context.Context, _ registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
			order = append(order, "a")
			d, err := next()
			order = append(order, "a-after")
			return d, err
		})
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			order = append(order, "b")
			return DenyCall("b denies"), nil
		})
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			order = append(order, "c")
			return AllowCall(), nil
		})
		wantFailure(t, e.call(context.Background(), "t", `{}`), "b denies", "")
		if !slices.Equal(order, []string{"a", "b", "a-after"}) {
			t.Errorf("order %v", order)
		}
	})
	t.Run("events flow up the scope chain, never down", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		other := e.reg.NewScope("other", nil)
		child := e.reg.NewScope("child", e.scope)
		grandchild := e.reg.NewScope("grandchild", child)
		saw := map[string][]string{}
		var mu sync.Mutex
		record := func(kind string, id string) {
			mu.Lock()
			saw[kind] = append(saw[kind], id)
			mu.Unlock()
		}
		e.p.OnPreExecute(e.scope, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
			record("pre", x.CallID)
			return next()
		})
		e.p.WrapExecute(e.scope, func(ctx context.Context, x registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			record("wrap", x.CallID)
			return next(ctx), nil
		})
		e.p.OnPostExecute(e.scope, func(_ context.Context, x registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			record("post", x.CallID)
			return next()
		})
		e.p.OnResult(e.scope, func(x registry.Execution, _ registry.Result) { record("result", x.CallID) })
		e.p.OnPreExecute(child, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
			record("child-pre", x.CallID)
			return next()
		})
		for id, s := range map[string]*registry.Scope{"mine": e.scope, "other": other, "child": child, "grandchild": grandchild, "none": nil} {
			e.p.Execute(context.Background(), Call{CallID: id, Name: "t", Scope: s})
		}
		for _, kind := range []string{"pre", "wrap", "post", "result"} {
			got := slices.Sorted(slices.Values(saw[kind]))
			if !slices.Equal(got, []string{"child", "grandchild", "mine"}) {
				t.Errorf("a %s listener of the parent saw %v", kind, got)
			}
		}
		if got := slices.Sorted(slices.Values(saw["child-pre"])); !slices.Equal(got, []string{"child", "grandchild"}) {
			t.Errorf("the child's listener saw %v (never its parent's calls)", got)
		}
	})
	t.Run("removed listener no longer runs", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		remove := e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			return DenyCall("no"), nil
		})
		remove()
		remove()
		wantSuccess(t, e.call(context.Background(), "t", `{}`))
	})
}

// TestPolicy_ScopeDisposal: a scope's listeners go with the scope.
func TestPolicy_ScopeDisposal(t *testing.T) {
	e := newEnv(t)
	e.tool("t", nil)
	scope := e.reg.NewScope("short-lived", nil)
	var saw []string
	e.p.OnPreExecute(scope, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
		saw = append(saw, x.CallID)
		return next()
	})
	e.p.AddGuard(scope, func(registry.Execution) string { return "guarded" })
	removed := e.p.OnPreExecute(scope, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
		return DenyCall("a removed listener ran"), nil
	})
	removed() // a scoped listener's own remove works before the scope goes
	removed()
	wantFailure(t, e.p.Execute(context.Background(), Call{CallID: "before", Name: "t", Scope: scope}), "guarded", "")
	scope.Dispose()
	wantSuccess(t, e.p.Execute(context.Background(), Call{CallID: "after", Name: "t", Scope: scope}))
	if !slices.Equal(saw, []string{"before"}) {
		t.Errorf("the disposed scope's listener saw %v", saw)
	}
}

func TestPolicy_DecisionDataTravelsWithTheCall(t *testing.T) {
	type judged struct{ path string }
	for _, tc := range []struct {
		name      string
		decision  PreDecision
		approver  *approver
		wantAsked any // the approval request's Data; nil: not asked
		wantBody  any // what the wrapper and the body read
	}{
		{"allowed without asking", PreDecision{Kind: Allow, Data: judged{"a"}}, nil, nil, judged{"a"}},
		{"asked and allowed", PreDecision{Kind: Ask, Data: judged{"b"}}, &approver{outcome: AllowedOnce}, judged{"b"}, judged{"b"}},
		{"no data", AllowCall(), nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.approver != nil {
				opts = append(opts, WithApprover(tc.approver))
			}
			e := newEnv(t, opts...)
			var inBody, inWrapper any
			e.tool("t", func(ctx context.Context, a jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
				inBody = DecisionData(ctx)
				return a, nil
			})
			e.p.OnPreExecute(nil, func(_ context.Context, _ registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
				return next() // a listener that delegates passes the data on
			})
			e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
				return tc.decision, nil
			})
			e.p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
				inWrapper = DecisionData(ctx)
				return next(ctx), nil
			})
			wantSuccess(t, e.call(context.Background(), "t", `{}`))
			if inBody != tc.wantBody || inWrapper != tc.wantBody {
				t.Errorf("body read %v, wrapper %v, want %v", inBody, inWrapper, tc.wantBody)
			}
			if tc.approver != nil && (tc.approver.count() != 1 || tc.approver.asked[0].Data != tc.wantAsked) {
				t.Errorf("asked %+v, want one request with %v", tc.approver.asked, tc.wantAsked)
			}
		})
	}
}

// detailed is a fake DetailedApprover answering with a fixed Approval.
type detailed struct {
	approver
	answer Approval
}

func (d *detailed) RequestApprovalDetail(ctx context.Context, req ApprovalRequest) Approval {
	d.RequestApproval(ctx, req)
	return d.answer
}

// TestPolicy_ApprovalDetailTravels: a DetailedApprover's grant reaches the
// wrapper and the body beside the decision's data, and its reason is the
// refusal's text; a plain approval grants nothing.
func TestPolicy_ApprovalDetailTravels(t *testing.T) {
	type hunks struct{ n int }
	for _, tc := range []struct {
		name      string
		approver  Approver
		wantGrant any
		wantError string // "" : the call runs
	}{
		{"a grant", &detailed{answer: Approval{Outcome: AllowedOnce, Grant: hunks{1}}}, hunks{1}, ""},
		{"allowed as asked", &detailed{answer: Approval{Outcome: AllowedOnce}}, nil, ""},
		{"a plain approver", &approver{outcome: AllowedOnce}, nil, ""},
		{"a refusal's reason", &detailed{answer: Approval{Outcome: Rejected, Reason: "hunk 3 is out of range"}}, nil, "Error: hunk 3 is out of range"},
		{"a refusal without one", &detailed{answer: Approval{Outcome: Rejected}}, nil, `Error: the user rejected tool "t"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, WithApprover(tc.approver))
			var inBody, inWrapper, data any
			ran := false
			e.tool("t", func(ctx context.Context, a jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
				ran, inBody, data = true, ApprovalGrant(ctx), DecisionData(ctx)
				return a, nil
			})
			e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
				return PreDecision{Kind: Ask, Data: "judged"}, nil
			})
			e.p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
				inWrapper = ApprovalGrant(ctx)
				return next(ctx), nil
			})
			res := e.call(context.Background(), "t", `{}`)
			if tc.wantError != "" {
				if ran || !res.IsError || len(res.Content) == 0 || res.Content[0].TextValue() != tc.wantError {
					t.Fatalf("ran=%v, result %+v, want the failure %q", ran, res, tc.wantError)
				}
				return
			}
			wantSuccess(t, res)
			if inBody != tc.wantGrant || inWrapper != tc.wantGrant || data != "judged" {
				t.Errorf("body read %v, wrapper %v (data %v), want %v and the decision's data", inBody, inWrapper, data, tc.wantGrant)
			}
		})
	}
}
