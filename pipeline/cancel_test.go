package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

var errNeverCancelled = errors.New("the body's context was never cancelled")

// waitDone waits a bounded time for c, so that a broken cancellation path
// fails the test instead of hanging it.
func waitDone(c context.Context) bool {
	select {
	case <-c.Done():
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

const (
	abortedMsg = "tool call aborted"
	beforeMsg  = "tool call aborted before dispatch"
)

// stageCounter counts the stages a call went through.
type stageCounter struct{ pre, wrap, post, body, observed int }

func (s *stageCounter) attach(e *env) {
	e.p.OnPreExecute(nil, func(_ context.Context, _ registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
		s.pre++
		return next()
	})
	e.p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
		s.wrap++
		return next(ctx), nil
	})
	e.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
		s.post++
		return next()
	})
	e.p.OnResult(nil, func(registry.Execution, registry.Result) { s.observed++ })
}

func TestCancel(t *testing.T) {
	bg := context.Background()
	t.Run("01 pre-aborted: no phases, finalizer and observers once", func(t *testing.T) {
		e := newEnv(t)
		var s stageCounter
		finalized := 0
		e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			s.body++
			return jsonv.NullValue(), nil
		},
			func(t *registry.Tool) {
				t.FinalizeContent = func(registry.Execution, registry.Result) ([]card.Content, bool) { finalized++; return nil, false }
			})
		s.attach(e)
		ctx, cancel := context.WithCancel(bg)
		cancel()
		wantFailure(t, e.call(ctx, "t", `{}`), beforeMsg, registry.CodeAbortedBeforeDispatch)
		if s != (stageCounter{observed: 1}) || finalized != 1 {
			t.Errorf("stages %+v finalized %d", s, finalized)
		}
	})
	t.Run("02 aborted while pre-execute awaits, then allowed", func(t *testing.T) {
		e := newEnv(t)
		var s stageCounter
		e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			s.body++
			return jsonv.NullValue(), nil
		})
		ctx, cancel := context.WithCancel(bg)
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			cancel()
			return AllowCall(), nil
		})
		s.attach(e)
		wantFailure(t, e.call(ctx, "t", `{}`), beforeMsg, registry.CodeAbortedBeforeDispatch)
		if s.body != 0 || s.wrap != 0 || s.post != 1 {
			t.Errorf("stages %+v", s)
		}
	})
	t.Run("03 a deny settling after the abort is preserved", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		ctx, cancel := context.WithCancel(bg)
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			cancel()
			return DenyCall("denied anyway"), nil
		})
		wantFailure(t, e.call(ctx, "t", `{}`), "denied anyway", "")
	})
	t.Run("04 a pre-execute error settling after the abort is preserved", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		ctx, cancel := context.WithCancel(bg)
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			cancel()
			return PreDecision{}, errors.New("gate crashed")
		})
		wantFailure(t, e.call(ctx, "t", `{}`), "gate crashed", "")
	})
	t.Run("05 aborted while a wrapper awaits before next", func(t *testing.T) {
		e := newEnv(t)
		var s stageCounter
		e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			s.body++
			return jsonv.NullValue(), nil
		})
		ctx, cancel := context.WithCancel(bg)
		e.p.WrapExecute(nil, func(wctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			cancel()
			return next(wctx), nil
		})
		wantFailure(t, e.call(ctx, "t", `{}`), beforeMsg, registry.CodeAbortedBeforeDispatch)
		if s.body != 0 {
			t.Errorf("body ran")
		}
	})
	t.Run("05c a success overtaken by cancellation is ABORTED already in dispatch", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(bg)
		e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			return jsonv.NullValue(), nil
		})
		e.p.WrapExecute(nil, func(wctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			res := next(wctx) // the body succeeded…
			cancel()          // …and the caller gives up before the result leaves dispatch
			return res, nil
		})
		var seen *registry.Result
		e.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, r registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			seen = &r
			return next()
		})
		wantFailure(t, e.call(ctx, "t", `{}`), abortedMsg, registry.CodeAborted)
		if seen == nil || !seen.IsError || seen.Error == nil || seen.Error.Info == nil || seen.Error.Info.Code != registry.CodeAborted {
			t.Errorf("post-execute saw %+v, want the ABORTED failure", seen)
		}
	})
	t.Run("05d a body that succeeds after its wrapper's context was cancelled is ABORTED", func(t *testing.T) {
		e := newEnv(t)
		started := make(chan struct{})
		e.tool("t", func(ctx context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			close(started)
			<-ctx.Done() // sees the cancellation, but reports success anyway
			return jsonv.NullValue(), nil
		})
		var inner registry.Result
		e.p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() { <-started; cancel() }()
			inner = next(wctx)
			return inner, nil
		})
		e.call(bg, "t", `{}`)
		if !inner.IsError || inner.Error == nil || inner.Error.Info == nil || inner.Error.Info.Code != registry.CodeAborted {
			t.Errorf("the wrapper's next returned %+v, want ABORTED", inner.Error)
		}
	})
	t.Run("05b aborted before next, the wrapper's context not derived from the caller's", func(t *testing.T) {
		for range 200 { // the fusion used to be asynchronous: repeat to catch the race
			e := newEnv(t)
			body := 0
			e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
				body++
				return jsonv.NullValue(), nil
			})
			ctx, cancel := context.WithCancel(bg)
			e.p.WrapExecute(nil, func(_ context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
				cancel()
				return next(context.Background()), nil
			})
			wantFailure(t, e.call(ctx, "t", `{}`), beforeMsg, registry.CodeAbortedBeforeDispatch)
			if body != 0 {
				t.Fatalf("the body ran after the abort")
			}
		}
	})
	t.Run("06 a wrapper installs an already-aborted context", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		e.p.WrapExecute(nil, func(_ context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			dead, cancel := context.WithCancel(bg)
			cancel()
			return next(dead), nil
		})
		wantFailure(t, e.call(bg, "t", `{}`), beforeMsg, registry.CodeAbortedBeforeDispatch)
	})
	t.Run("07 a wrapper short-circuits with a success while the caller aborted", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		ctx, cancel := context.WithCancel(bg)
		e.p.WrapExecute(nil, func(context.Context, registry.Execution, func(context.Context) registry.Result) (registry.Result, error) {
			cancel()
			return registry.Result{Value: jsonv.NullValue(), AdditionalContexts: []registry.ContextMessage{ctxMsg("wrapper")}}, nil
		})
		r := e.call(ctx, "t", `{}`)
		wantFailure(t, r, beforeMsg, registry.CodeAbortedBeforeDispatch)
		if !slices.Equal(contextTexts(r), []string{"wrapper"}) {
			t.Errorf("contexts %v", contextTexts(r))
		}
	})
	t.Run("08 success overtaken while a wrapper awaits keeps deferred then wrapper contexts", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
			run.DeferContext(ctxMsg("deferred"))
			return jsonv.NullValue(), nil
		})
		ctx, cancel := context.WithCancel(bg)
		e.p.WrapExecute(nil, func(wctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			r := next(wctx)
			cancel()
			r.AdditionalContexts = append(r.AdditionalContexts, ctxMsg("wrapper"))
			return r, nil
		})
		r := e.call(ctx, "t", `{}`)
		wantFailure(t, r, abortedMsg, registry.CodeAborted)
		if !slices.Equal(contextTexts(r), []string{"deferred", "wrapper"}) {
			t.Errorf("contexts %v", contextTexts(r))
		}
	})
	t.Run("09 success overtaken during post-execute keeps deferred then post contexts", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
			run.DeferContext(ctxMsg("deferred"))
			return jsonv.NullValue(), nil
		})
		ctx, cancel := context.WithCancel(bg)
		e.p.OnPostExecute(nil, func(context.Context, registry.Execution, registry.Result, func() (PostDecision, error)) (PostDecision, error) {
			cancel()
			return PostDecision{AdditionalContexts: []registry.ContextMessage{ctxMsg("post")}}, nil
		})
		r := e.call(ctx, "t", `{}`)
		wantFailure(t, r, abortedMsg, registry.CodeAborted)
		if !slices.Equal(contextTexts(r), []string{"deferred", "post"}) {
			t.Errorf("contexts %v", contextTexts(r))
		}
	})
	t.Run("10 a wrapper failure after the abort is preserved", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		ctx, cancel := context.WithCancel(bg)
		e.p.WrapExecute(nil, func(wctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			next(wctx)
			cancel()
			return registry.Result{IsError: true, Error: &registry.Failure{Message: "wrapper failure", Info: &registry.ErrorInfo{Name: "W", Code: "W_FAIL"}}}, nil
		})
		wantFailure(t, e.call(ctx, "t", `{}`), "wrapper failure", "W_FAIL")
	})
	t.Run("11 a tool-owned error on abort keeps its info", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(bg)
		e.tool("t", func(c context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			cancel()
			if !waitDone(c) {
				return jsonv.Value{}, errNeverCancelled
			}
			return jsonv.Value{}, registry.NewError("FsError", "FS_ABORTED", "read aborted")
		})
		wantFailure(t, e.call(ctx, "t", `{}`), "read aborted", "FS_ABORTED")
	})
	t.Run("12 a post-execute block after the abort is preserved", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil)
		ctx, cancel := context.WithCancel(bg)
		e.p.OnPostExecute(nil, func(context.Context, registry.Execution, registry.Result, func() (PostDecision, error)) (PostDecision, error) {
			cancel()
			return Block([]card.Content{card.Text("blocked")}), nil
		})
		wantFailure(t, e.call(ctx, "t", `{}`), "blocked", "")
	})
	t.Run("13 the body sees a fused context; post sees the caller's", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		var wrapperCtx, bodyCtx, postCtx context.Context
		e.tool("t", func(c context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			bodyCtx = c
			cancel()
			if !waitDone(c) {
				return jsonv.Value{}, errNeverCancelled
			}
			return jsonv.Value{}, registry.NewError("X", "X", "stopped")
		})
		e.p.WrapExecute(nil, func(_ context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
			wrapperCtx = context.WithValue(bg, struct{}{}, "wrapper's own, detached")
			return next(wrapperCtx), nil
		})
		e.p.OnPostExecute(nil, func(c context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			postCtx = c
			return next()
		})
		// The body returns "stopped" only if the caller's abort reached it
		// through the detached wrapper context.
		wantFailure(t, e.call(ctx, "t", `{}`), "stopped", "X")
		if bodyCtx == ctx || bodyCtx == wrapperCtx {
			t.Errorf("body saw the caller's or the wrapper's context, not a fused one")
		}
		if bodyCtx.Value(struct{}{}) != "wrapper's own, detached" {
			t.Errorf("fused context lost the wrapper's values")
		}
		if wrapperCtx.Err() != nil {
			t.Errorf("caller abort cancelled the wrapper's own context")
		}
		if postCtx != ctx {
			t.Errorf("post-execute did not see the caller's context")
		}
	})
	t.Run("14 an uncooperative body is awaited, then ABORTED", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(bg)
		release := make(chan struct{})
		finished := false
		e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			cancel()
			<-release // ignores its context
			finished = true
			return jsonv.NullValue(), nil
		})
		go func() { time.Sleep(20 * time.Millisecond); close(release) }()
		wantFailure(t, e.call(ctx, "t", `{}`), abortedMsg, registry.CodeAborted)
		if !finished {
			t.Errorf("result returned before the body settled")
		}
	})
	t.Run("15 a body returning ctx.Err() on cancellation is ABORTED", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(bg)
		e.tool("t", func(c context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			cancel()
			if !waitDone(c) {
				return jsonv.Value{}, errNeverCancelled
			}
			return jsonv.Value{}, c.Err()
		})
		wantFailure(t, e.call(ctx, "t", `{}`), abortedMsg, registry.CodeAborted)
	})
	t.Run("16 caller cancelled while an approval is pending", func(t *testing.T) {
		ctx, cancel := context.WithCancel(bg)
		a := &approver{hook: func(c context.Context, _ ApprovalRequest) ApprovalOutcome {
			cancel()
			if !waitDone(c) {
				return Unavailable
			}
			return Cancelled
		}}
		e := newEnv(t, WithApprover(a))
		var s stageCounter
		e.tool("t", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			s.body++
			return jsonv.NullValue(), nil
		})
		askAll(e.p)
		s.attach(e)
		wantFailure(t, e.call(ctx, "t", `{}`), beforeMsg, registry.CodeAbortedBeforeDispatch)
		if s.body != 0 || s.post != 1 {
			t.Errorf("stages %+v", s)
		}
	})
	t.Run("17 a plain context error without cancellation stays a plain failure", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", failWith(context.DeadlineExceeded))
		wantFailure(t, e.call(bg, "t", `{}`), "context deadline exceeded", "")
	})
}

func TestTimeoutPolicy(t *testing.T) {
	bg := context.Background()
	sleepy := func(d time.Duration, cooperative bool) execFunc {
		return func(c context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			if cooperative {
				select {
				case <-c.Done():
					return jsonv.Value{}, c.Err()
				case <-time.After(d):
				}
			} else {
				time.Sleep(d)
			}
			return jsonv.NullValue(), nil
		}
	}
	withTimeout := func(d time.Duration) func(*registry.Tool) { return func(t *registry.Tool) { t.Timeout = d } }
	for _, tc := range []struct {
		name    string
		fn      execFunc
		timeout time.Duration
		caller  func() (context.Context, context.CancelFunc)
		msg     string // "" success
		code    string
	}{
		{"fast tool succeeds", sleepy(0, true), time.Second, nil, "", ""},
		{"cooperative tool times out", sleepy(time.Minute, true), 20 * time.Millisecond, nil, "tool call timed out after 20ms", registry.CodeToolTimeout},
		{"uncooperative tool times out once it settles", sleepy(60*time.Millisecond, false), 20 * time.Millisecond, nil, "tool call timed out after 20ms", registry.CodeToolTimeout},
		{"a sub-millisecond timeout keeps its fraction", sleepy(time.Minute, true), 500 * time.Microsecond, nil, "tool call timed out after 0.5ms", registry.CodeToolTimeout},
		{"a fractional timeout", sleepy(time.Minute, true), 2500 * time.Microsecond, nil, "tool call timed out after 2.5ms", registry.CodeToolTimeout},
		{"no declared timeout changes nothing", sleepy(30*time.Millisecond, true), 0, nil, "", ""},
		{"caller cancellation first keeps ABORTED", sleepy(time.Minute, true), time.Minute, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(bg, 20*time.Millisecond)
		}, abortedMsg, registry.CodeAborted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.tool("t", tc.fn, withTimeout(tc.timeout))
			e.p.WrapExecute(nil, TimeoutPolicy(e.reg))
			ctx, cancel := bg, context.CancelFunc(func() {})
			if tc.caller != nil {
				ctx, cancel = tc.caller()
			}
			defer cancel()
			r := e.call(ctx, "t", `{}`)
			if tc.msg == "" {
				wantSuccess(t, r)
				return
			}
			wantFailure(t, r, tc.msg, tc.code)
			if tc.code == registry.CodeToolTimeout && r.Error.Info.Name != "ToolTimeoutError" {
				t.Errorf("info name %q", r.Error.Info.Name)
			}
		})
	}
	t.Run("timeout first, caller later: TOOL_TIMEOUT stays", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(bg)
		e.tool("t", func(c context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			if !waitDone(c) {
				return jsonv.Value{}, errNeverCancelled
			}
			cancel()
			return jsonv.Value{}, c.Err()
		}, withTimeout(10*time.Millisecond))
		e.p.WrapExecute(nil, TimeoutPolicy(e.reg))
		wantFailure(t, e.call(ctx, "t", `{}`), "tool call timed out after 10ms", registry.CodeToolTimeout)
	})
	t.Run("the timeout visible to the calling scope applies", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", sleepy(50*time.Millisecond, true))
		scoped := *e.reg.Get("t", nil)
		scoped.Timeout = 10 * time.Millisecond
		if _, err := e.reg.Register(&scoped, e.scope); err != nil {
			t.Fatal(err)
		}
		e.p.WrapExecute(nil, TimeoutPolicy(e.reg))
		wantFailure(t, e.call(bg, "t", `{}`), "tool call timed out after 10ms", registry.CodeToolTimeout)
		wantSuccess(t, e.p.Execute(bg, Call{CallID: "g", Name: "t"}))
	})
}

func TestFinalizeContentAndObservers(t *testing.T) {
	bg := context.Background()
	t.Run("finalizer replaces only content, exactly once", func(t *testing.T) {
		e := newEnv(t)
		calls := 0
		e.tool("t", value(jsonv.MustParse(`"long output"`)), func(t *registry.Tool) {
			t.FinalizeContent = func(_ registry.Execution, r registry.Result) ([]card.Content, bool) {
				calls++
				return []card.Content{card.Text("capped: " + r.Content[0].TextValue()[:10])}, true
			}
		})
		r := e.call(bg, "t", `{}`)
		if calls != 1 || text(r) != `capped: value "lon` || r.Value.String() != `"long output"` {
			t.Errorf("calls %d content %q value %s", calls, text(r), r.Value)
		}
	})
	t.Run("finalizer sees failures that skip post-execute", func(t *testing.T) {
		e := newEnv(t)
		var saw []string
		e.tool("t", nil, func(t *registry.Tool) {
			t.FinalizeContent = func(_ registry.Execution, r registry.Result) ([]card.Content, bool) {
				saw = append(saw, r.Error.Message)
				return nil, false
			}
		})
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			return PreDecision{}, errors.New("pre threw")
		})
		e.call(bg, "t", `{}`)
		if !slices.Equal(saw, []string{"pre threw"}) {
			t.Errorf("finalizer saw %v", saw)
		}
	})
	t.Run("finalizer captured before policy, even if the tool is unregistered", func(t *testing.T) {
		e := newEnv(t)
		calls := 0
		tool := &registry.Tool{Name: "t", Parameters: jsonv.MustParse(`{}`), Output: registry.Output{Schema: jsonv.MustParse(`{}`),
			Render: func(_, v jsonv.Value) ([]card.Content, error) { return nil, nil }},
			Execute:         value(jsonv.NullValue()),
			FinalizeContent: func(registry.Execution, registry.Result) ([]card.Content, bool) { calls++; return nil, false }}
		dispose, _ := e.reg.Register(tool, nil)
		e.p.OnPreExecute(nil, func(context.Context, registry.Execution, func() (PreDecision, error)) (PreDecision, error) {
			dispose()
			panic("gone")
		})
		e.call(bg, "t", `{}`)
		if calls != 1 {
			t.Errorf("finalizer ran %d times", calls)
		}
	})
	t.Run("a panicking finalizer becomes the result", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil, func(t *registry.Tool) {
			t.FinalizeContent = func(registry.Execution, registry.Result) ([]card.Content, bool) { panic("finalizer broke") }
		})
		wantFailure(t, e.call(bg, "t", `{}`), "finalizer broke", "")
	})
	t.Run("a finalizer returning a zero block fails materialization", func(t *testing.T) {
		e := newEnv(t)
		e.tool("t", nil, func(t *registry.Tool) {
			t.FinalizeContent = func(registry.Execution, registry.Result) ([]card.Content, bool) { return []card.Content{{}}, true }
		})
		wantFailure(t, e.call(bg, "t", `{}`), "tool result must be losslessly JSON-serializable", "")
	})
	t.Run("observers: scoped, contained, each with the caller's result", func(t *testing.T) {
		var logs bytes.Buffer
		e := newEnv(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		e.tool("t", nil)
		other := e.reg.NewScope("other", nil)
		var mine, global int
		var observed []registry.Result
		e.p.OnResult(e.scope, func(registry.Execution, registry.Result) { mine++ })
		e.p.OnResult(nil, func(registry.Execution, registry.Result) { panic("observer broke") })
		e.p.OnResult(nil, func(_ registry.Execution, r registry.Result) { global++; observed = append(observed, r) })
		r := e.call(bg, "t", `{"a":1}`)
		e.p.Execute(bg, Call{CallID: "x", Name: "t", Scope: other})
		if mine != 1 || global != 2 {
			t.Errorf("scoped observer %d, global %d", mine, global)
		}
		if text(r) != `value {"a":1}` || text(observed[0]) != text(r) || !observed[0].Value.Equal(r.Value) {
			t.Errorf("caller %q, observer %q", text(r), text(observed[0]))
		}
		if !strings.Contains(logs.String(), `tool \"t\" (c1): tools/result observer failed: observer broke`) {
			t.Errorf("containment not logged with the contract's text: %s", logs.String())
		}
	})
}
