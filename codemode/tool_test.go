package codemode

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// cmEnv is a registry with run_code installed, a pipeline, and an agent
// scope presenting tools as mode.
type cmEnv struct {
	t     testing.TB
	reg   *registry.Registry
	pipe  *pipeline.Pipeline
	rc    *RunCode
	scope *registry.Scope
	obs   *recordingObserver

	running, peak atomic.Int32
	bodies        atomic.Int32
	readDelay     time.Duration // how long a read takes (tests: 2 ms, so that calls overlap)
}

type recordingObserver struct {
	mu     sync.Mutex
	events []string
	calls  []pipeline.Call
	logged map[string][]card.Content
	// when, if set, is called (under mu) with each event: a test cancels
	// a run once a call has reached a given point, not after a guessed
	// delay that a slow runner start would outlast.
	when func(event string)
}

// add records an event; o.mu is held.
func (o *recordingObserver) add(ev string) {
	o.events = append(o.events, ev)
	if o.when != nil {
		o.when(ev)
	}
}

// cancelAt makes the observer call cancel at the event ev.
func (o *recordingObserver) cancelAt(ev string, cancel func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.when = func(got string) {
		if got == ev {
			go cancel() // not under mu: cancelling runs the run's AfterFuncs
		}
	}
}

func (o *recordingObserver) SubCallStarted(outer registry.Execution, c pipeline.Call) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.add("start " + c.CallID)
	o.calls = append(o.calls, c)
}

func (o *recordingObserver) SubCallState(_ registry.Execution, id string, s pipeline.State) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.add(s.String() + " " + id)
}

func (o *recordingObserver) SubCallCommitted(_ registry.Execution, c pipeline.Call, r registry.Result, logged []card.Content) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.add("commit " + c.CallID)
	if o.logged == nil {
		o.logged = map[string][]card.Content{}
	}
	o.logged[c.CallID] = logged
}

func (o *recordingObserver) commits() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, e := range o.events {
		if id, ok := strings.CutPrefix(e, "commit "); ok {
			out = append(out, id)
		}
	}
	return out
}

func newCM(t testing.TB, mode registry.Presentation, cfg Config) *cmEnv {
	t.Helper()
	reg := registry.New(registry.WithCodeMode())
	e := &cmEnv{t: t, reg: reg, pipe: pipeline.New(reg), obs: &recordingObserver{}, readDelay: 2 * time.Millisecond}
	e.rc = New(e.pipe, cfg)
	tool, err := e.rc.Tool()
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.InstallCodeMode(tool); err != nil {
		t.Fatal(err)
	}
	e.scope = reg.NewScope("agent", nil)
	if mode != registry.Native {
		if _, err := reg.PresentAs(e.scope, mode); err != nil {
			t.Fatal(err)
		}
	}
	text := func(v jsonv.Value) []card.Content { return []card.Content{card.Text(v.String())} }
	add := func(name string, safe bool, body func(ctx context.Context, args jsonv.Value, run registry.RunContext) (jsonv.Value, error)) {
		tl := &registry.Tool{
			Name:        name,
			Description: name + " something",
			Parameters:  jsonv.MustParse(`{"type":"object"}`),
			Output:      registry.Output{Schema: jsonv.MustParse(`{}`), Render: func(_, v jsonv.Value) ([]card.Content, error) { return text(v), nil }, PresentationMeta: func(_, v jsonv.Value) (jsonv.Value, error) { return v, nil }},
			Execute: func(ctx context.Context, args jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
				e.bodies.Add(1)
				n := e.running.Add(1)
				defer e.running.Add(-1)
				for p := e.peak.Load(); n > p && !e.peak.CompareAndSwap(p, n); p = e.peak.Load() {
				}
				return body(ctx, args, run)
			},
		}
		if safe {
			tl.IsConcurrencySafe = func(jsonv.Value) bool { return true }
		}
		if _, err := reg.Register(tl, nil); err != nil {
			t.Fatal(err)
		}
	}
	add("read", true, func(_ context.Context, args jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
		time.Sleep(e.readDelay)
		p, _ := args.Get("path")
		return jsonv.MustParse(`{"path":` + p.String() + `,"text":"contents of ` + p.Str() + `"}`), nil
	})
	add("write", false, func(_ context.Context, args jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
		return jsonv.MustParse(`"written"`), nil
	})
	add("fail", true, func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
		return jsonv.Value{}, errors.New("file not found: x.go")
	})
	add("slow", true, func(ctx context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
		<-ctx.Done()
		return jsonv.Value{}, ctx.Err()
	})
	add("xslow", false, func(ctx context.Context, args jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
		id, _ := args.Get("id")
		e.obs.mu.Lock()
		e.obs.add("body " + id.Str())
		e.obs.mu.Unlock()
		select {
		case <-ctx.Done():
			e.obs.mu.Lock()
			e.obs.add("saw abort " + id.Str())
			e.obs.mu.Unlock()
			return jsonv.Value{}, ctx.Err()
		case <-time.After(time.Minute): // far past any program's spin, even under -race on a loaded machine
			return jsonv.MustParse(`"late"`), nil
		}
	})
	add("img", true, func(_ context.Context, _ jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
		return jsonv.MustParse(`"image"`), nil
	})
	add("extra", true, func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
		run.DeferContext(registry.ContextMessage{Content: []card.Content{card.Text("remember this")}})
		run.ConcludeTurn()
		return jsonv.MustParse(`1`), nil
	})
	return e
}

// runCode makes a model-direct run_code call.
func (e *cmEnv) runCode(ctx context.Context, id, code string) registry.Result {
	e.t.Helper()
	args, _ := jsonv.FromGo(map[string]any{"code": code, "description": "Test program"})
	return e.pipe.Execute(WithObserver(ctx, e.obs), pipeline.Call{CallID: id, Name: "run_code", Args: args, Scope: e.scope})
}

func resultText(r registry.Result) string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.TextValue())
	}
	return strings.Join(parts, "|")
}

func TestRunCode_Wire(t *testing.T) {
	names := func(s []registry.ToolSchema) string {
		var out []string
		for _, x := range s {
			out = append(out, x.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		mode          registry.Presentation
		model, all    string
		directAllowed bool
	}{
		{registry.Native, "read,write,fail,slow,xslow,img,extra", "read,write,fail,slow,xslow,img,extra", true},
		{registry.Code, "run_code", "read,write,fail,slow,xslow,img,extra,run_code", false},
		{registry.Both, "read,write,fail,slow,xslow,img,extra,run_code", "read,write,fail,slow,xslow,img,extra,run_code", true},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			e := newCM(t, tc.mode, Config{})
			if got := names(e.reg.ModelSchemas(e.scope)); got != tc.model {
				t.Errorf("the model sees %s, want %s", got, tc.model)
			}
			if got := names(e.reg.Schemas(e.scope)); got != tc.all {
				t.Errorf("dispatchable %s, want %s", got, tc.all)
			}
			r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "d", Name: "write", Scope: e.scope})
			if tc.directAllowed != !r.IsError {
				t.Fatalf("direct call: %+v", r.Error)
			}
			if !tc.directAllowed {
				want := "unknown tool \"write\": only `run_code` is callable directly — call `write` from inside a `run_code` program instead"
				if r.Error.Message != want || r.Error.Info == nil || r.Error.Info.Code != registry.CodeUnknownTool {
					t.Errorf("collapse: %+v %+v", r.Error, r.Error.Info)
				}
				if e.bodies.Load() != 0 {
					t.Error("the collapsed call ran")
				}
			}
			if r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "u", Name: "nope", Scope: e.scope}); !r.IsError || r.Error.Message != `unknown tool "nope"` {
				t.Errorf("an unknown tool: %+v", r.Error)
			}
		})
	}
	t.Run("run_code escapes every restriction", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		child := e.reg.NewScope("child", e.scope)
		if _, err := e.reg.Restrict(child, registry.Restriction{Allow: []string{}}); err != nil {
			t.Fatal(err)
		}
		if got := names(e.reg.ModelSchemas(child)); got != "run_code" {
			t.Errorf("a child allowing nothing sees %s", got)
		}
		if _, err := e.reg.Restrict(child, registry.Restriction{Deny: []string{"run_code"}}); err == nil {
			t.Error("run_code could be restricted")
		}
	})
	t.Run("the nearest presentAs wins", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		child := e.reg.NewScope("child", e.scope)
		if _, err := e.reg.PresentAs(child, registry.Native); err != nil {
			t.Fatal(err)
		}
		if got := names(e.reg.ModelSchemas(child)); strings.Contains(got, "run_code") {
			t.Errorf("a native child sees %s", got)
		}
		if _, err := e.reg.PresentAs(e.scope, registry.Both); err == nil || !strings.Contains(err.Error(), `conflicts with "code" already declared`) {
			t.Errorf("a second presentAs: %v", err)
		}
	})
	t.Run("native registries refuse code", func(t *testing.T) {
		reg := registry.New()
		if _, err := reg.PresentAs(reg.NewScope("a", nil), registry.Code); err == nil {
			t.Error("a registry without run_code accepted code mode")
		}
	})
}

func TestRunCode_Dispatch(t *testing.T) {
	t.Run("a program reads two files and returns", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		r := e.runCode(context.Background(), "outer", "const [a, b] = await Promise.all([tools.read({path: 'a.go'}), tools.read({path: 'b.go'})]);\nconsole.log('read', a.path, b.path);\nreturn {a: a.text, b: b.text};")
		if r.IsError {
			t.Fatal(r.Error.Message)
		}
		want := "read a.go b.go\n{\n  \"a\": \"contents of a.go\",\n  \"b\": \"contents of b.go\"\n}"
		if got := resultText(r); got != want {
			t.Errorf("text %q, want %q", got, want)
		}
		if got := e.obs.commits(); !slices.Equal(got, []string{"outer:code:1", "outer:code:2"}) {
			t.Errorf("commits %v", got)
		}
		for _, c := range e.obs.calls {
			if c.Parent.IsZero() || c.Scope != e.scope || c.RootCallID != "outer" {
				t.Errorf("sub-call %s: parent %v scope %v root %q", c.CallID, c.Parent, c.Scope, c.RootCallID)
			}
		}
		if v, _ := r.Value.Get("logs"); v.String() != `["read a.go b.go"]` {
			t.Errorf("value %s", r.Value)
		}
	})
	t.Run("sub-calls get no presentation meta and their content is logged", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		var metas []bool
		e.pipe.OnResult(nil, func(x registry.Execution, r registry.Result) {
			if !x.Parent.IsZero() {
				metas = append(metas, r.Meta.IsValid())
			}
		})
		e.runCode(context.Background(), "o", "await tools.read({path: 'x'})")
		if !slices.Equal(metas, []bool{false}) {
			t.Errorf("sub-call metas %v", metas)
		}
		if got := e.obs.logged["o:code:1"]; len(got) != 1 || !strings.Contains(got[0].TextValue(), "contents of x") {
			t.Errorf("logged %v", got)
		}
	})
	t.Run("20 parallel reads respect the pool and commit in order", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{MaxParallelSubCalls: 4})
		r := e.runCode(context.Background(), "p", "const rs = await Promise.all(Array.from({length: 20}, (_, i) => tools.read({path: 'f' + i})));\nreturn rs.length")
		if r.IsError || resultText(r) != "20" {
			t.Fatalf("%s %+v", resultText(r), r.Error)
		}
		if p := e.peak.Load(); p > 4 || p < 2 {
			t.Errorf("peak %d, want 2..4", p)
		}
		var want []string
		for i := 1; i <= 20; i++ {
			want = append(want, fmt.Sprintf("p:code:%d", i))
		}
		if got := e.obs.commits(); !slices.Equal(got, want) {
			t.Errorf("commits %v", got)
		}
	})
	t.Run("a failed sub-call is a ToolCallError with the message", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		r := e.runCode(context.Background(), "f", "try { await tools.fail({}) } catch (err) { return [err.name, err.toolName, err.message] }")
		if got := resultText(r); got != "[\n  \"ToolCallError\",\n  \"fail\",\n  \"file not found: x.go\"\n]" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("a denied sub-call rejects with the reason", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		e.pipe.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (pipeline.PreDecision, error)) (pipeline.PreDecision, error) {
			if x.Name == "write" {
				return pipeline.DenyCall("writes are off"), nil
			}
			return next()
		})
		r := e.runCode(context.Background(), "d", "try { await tools.write({}) } catch (err) { return err.message }")
		if got := resultText(r); got != "writes are off" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("a failed program is CODE_RUN_FAILED with its logs", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		r := e.runCode(context.Background(), "x", "console.log('before');\nthrow new Error('boom');")
		if !r.IsError || r.Error.Info == nil || r.Error.Info.Code != "CODE_RUN_FAILED" {
			t.Fatalf("%+v", r.Error)
		}
		if !strings.HasPrefix(r.Error.Message, "code run failed (exception): Error: boom\n\tat __dsh_program (program.ts:2:") || !strings.HasSuffix(r.Error.Message, "\nCaptured output:\nbefore") {
			t.Errorf("message %q", r.Error.Message)
		}
	})
	t.Run("a blank description fails", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		args := jsonv.MustParse(`{"code":"return 1","description":"  "}`)
		r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "b", Name: "run_code", Args: args, Scope: e.scope})
		if !r.IsError || r.Error.Message != "invalid description: expected a non-empty string" {
			t.Errorf("%+v", r.Error)
		}
	})
	t.Run("no output", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		if got := resultText(e.runCode(context.Background(), "n", "const x = 1")); got != "(run_code completed with no output)" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("contexts and concludeTurn are forwarded", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		r := e.runCode(context.Background(), "c", "return await tools.extra({})")
		if len(r.AdditionalContexts) != 1 || r.AdditionalContexts[0].Content[0].TextValue() != "remember this" || !r.ConcludesTurn {
			t.Errorf("contexts %+v concludes %v", r.AdditionalContexts, r.ConcludesTurn)
		}
	})
	t.Run("queued calls are abandoned when the program settles", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		// xslow is exclusive and holds its turn until it is aborted, so the
		// second and third calls are still queued when the program settles,
		// however slowly the machine runs (with an instant tool, the first
		// could commit first on a loaded machine and let the second start).
		r := e.runCode(context.Background(), "q", "for (const id of ['1', '2', '3']) tools.xslow({id}).catch(() => 'aborted'); return 'done'")
		if r.IsError || resultText(r) != "done" {
			t.Fatalf("%+v", r.Error)
		}
		if n := e.bodies.Load(); n > 1 {
			t.Errorf("%d writes ran after the program settled", n)
		}
		// Abandoned calls never start: no start event, no pre-execute.
		starts := 0
		for _, ev := range e.obs.events {
			if strings.HasPrefix(ev, "start ") {
				starts++
			}
		}
		if starts > 1 {
			t.Errorf("%d sub-calls started after the program settled: %v", starts, e.obs.events)
		}
	})
	t.Run("the dispatch log can reshape the durable copy; a failing listener is contained", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		e.rc.OnDispatchLog(func(DispatchLog, func() []card.Content) ([]card.Content, error) {
			return nil, errors.New("broken listener")
		})
		e.rc.OnDispatchLog(func(d DispatchLog, next func() []card.Content) ([]card.Content, error) {
			return []card.Content{card.Text("[spilled " + d.SubCallID + "]")}, nil
		})
		r := e.runCode(context.Background(), "l", "return (await tools.read({path: 'x'})).text")
		if resultText(r) != "contents of x" {
			t.Errorf("the program's value changed: %q", resultText(r))
		}
		if got := e.obs.logged["l:code:1"]; len(got) != 1 || got[0].TextValue() != "[spilled l:code:1]" {
			t.Errorf("logged %v", got)
		}
	})
}

func TestRunCode_Ordering(t *testing.T) {
	t.Run("pre-execute runs in submission order, sub-calls carry the outer token", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		var order []string
		var outer registry.Token
		var parents []registry.Token
		e.pipe.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (pipeline.PreDecision, error)) (pipeline.PreDecision, error) {
			if x.Name == "run_code" {
				outer = x.Token
			} else {
				order = append(order, x.CallID) // pre-execute runs on one goroutine at a time
				parents = append(parents, x.Parent)
			}
			return next()
		})
		e.runCode(context.Background(), "o", "await Promise.all([1, 2, 3, 4, 5].map((i) => tools.read({path: 'f' + i})))")
		if !slices.Equal(order, []string{"o:code:1", "o:code:2", "o:code:3", "o:code:4", "o:code:5"}) {
			t.Errorf("pre-execute order %v", order)
		}
		for _, p := range parents {
			if p != outer || p.IsZero() {
				t.Errorf("a sub-call's parent is not the run_code call's token")
			}
		}
	})
	t.Run("exclusive sub-calls never overlap", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		r := e.runCode(context.Background(), "w", "await Promise.all([tools.write({}), tools.write({}), tools.write({})]); return 'ok'")
		if resultText(r) != "ok" || e.peak.Load() != 1 {
			t.Errorf("%s, peak %d", resultText(r), e.peak.Load())
		}
	})
	t.Run("images are deferred onto the outer result", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		e.pipe.OnPostExecute(nil, func(_ context.Context, x registry.Execution, r registry.Result, next func() (pipeline.PostDecision, error)) (pipeline.PostDecision, error) {
			if x.Name == "img" {
				return pipeline.AcceptContent([]card.Content{card.Text("a chart"), card.Image("iVBORw0KGgo=", "image/png")}), nil
			}
			return next()
		})
		r := e.runCode(context.Background(), "i", "await tools.img({}); return 1")
		if len(r.AdditionalContexts) != 1 || r.AdditionalContexts[0].Source != "plugin:tools-code-mode" || r.AdditionalContexts[0].Content[0].Type() != card.TypeImage {
			t.Errorf("contexts %+v", r.AdditionalContexts)
		}
	})
}

func TestRunCode_Quiescence(t *testing.T) {
	has := func(e *cmEnv, ev string) bool {
		e.obs.mu.Lock()
		defer e.obs.mu.Unlock()
		return slices.Contains(e.obs.events, ev)
	}
	t.Run("sub-call contexts survive a run that fails later", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		r := e.runCode(context.Background(), "f", "await tools.extra({}); throw new Error('failed later')")
		if !r.IsError || len(r.AdditionalContexts) != 1 || r.AdditionalContexts[0].Content[0].TextValue() != "remember this" {
			t.Errorf("error %+v, contexts %+v", r.Error, r.AdditionalContexts)
		}
	})
	t.Run("cancel aborts the in-flight call and abandons the queued one", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		e.obs.cancelAt("body first", cancel)
		r := e.runCode(ctx, "a", "await Promise.all([tools.xslow({id: 'first'}).catch(() => 'rejected'), tools.xslow({id: 'second'}).catch(() => 'rejected')])")
		if !r.IsError || !strings.HasPrefix(r.Error.Message, "code run failed (abort)") {
			t.Fatalf("%+v", r.Error)
		}
		if !has(e, "body first") || !has(e, "saw abort first") || has(e, "body second") || has(e, "start a:code:2") {
			t.Errorf("events %v", e.obs.events)
		}
	})
	t.Run("a program that throws with a call in flight waits for it", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		// Results commit in submission order, so the program cannot await a
		// later call; it spins until the call has started, then throws.
		r := e.runCode(context.Background(), "q", "tools.xslow({id: 'orphan'}).catch(() => 'held');\nfor (let i = 0; i < 3e6; i++) {}\nthrow new Error('exploded')")
		if !r.IsError || !strings.Contains(r.Error.Message, "exploded") {
			t.Fatalf("%+v", r.Error)
		}
		// The in-flight call was aborted and committed before run_code
		// returned.
		if !has(e, "saw abort orphan") || !slices.Equal(e.obs.commits(), []string{"q:code:1"}) {
			t.Errorf("events %v", e.obs.events)
		}
	})
	t.Run("an agent-less run works", func(t *testing.T) {
		reg := registry.New(registry.WithCodeMode(), registry.WithDefaultPresentation(registry.Code))
		pipe := pipeline.New(reg)
		tool, _ := New(pipe, Config{}).Tool()
		if err := reg.InstallCodeMode(tool); err != nil {
			t.Fatal(err)
		}
		args, _ := jsonv.FromGo(map[string]any{"code": "return Object.keys(tools).length", "description": "Count the tools"})
		r := pipe.Execute(context.Background(), pipeline.Call{CallID: "n", Name: "run_code", Args: args})
		if r.IsError || resultText(r) != "0" {
			t.Errorf("%s %+v", resultText(r), r.Error)
		}
	})
}

func TestRunCode_Cancellation(t *testing.T) {
	t.Run("cancel interrupts the program and its in-flight sub-call", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		e.obs.cancelAt("running s:code:1", cancel)
		r := e.runCode(ctx, "s", "await tools.slow({}); return 1")
		// The run failed (it did not succeed), so the failure stands.
		if !r.IsError || r.Error.Info == nil || r.Error.Info.Code != "CODE_RUN_FAILED" || !strings.HasPrefix(r.Error.Message, "code run failed (abort)") {
			t.Fatalf("%+v", r.Error)
		}
		// The sub-call only ends when its context does: it was cancelled,
		// and it committed before run_code returned.
		if got := e.obs.commits(); !slices.Equal(got, []string{"s:code:1"}) {
			t.Errorf("commits %v", got)
		}
	})
	t.Run("an infinite loop is stopped by cancel", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		if r := e.runCode(ctx, "l", "while (true) {}"); !r.IsError {
			t.Fatal("the loop was not stopped")
		}
	})
	t.Run("an infinite loop is stopped by the timeout", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{Timeout: 100 * time.Millisecond})
		r := e.runCode(context.Background(), "t", "while (true) {}")
		if !r.IsError || !strings.HasPrefix(r.Error.Message, "code run failed (timeout): wall-clock ceiling reached (100ms)") {
			t.Fatalf("%+v", r.Error)
		}
	})
	t.Run("a pre-aborted run_code never runs", func(t *testing.T) {
		e := newCM(t, registry.Code, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := e.runCode(ctx, "p", "await tools.write({})")
		if !r.IsError || r.Error.Info == nil || r.Error.Info.Code != "ABORTED_BEFORE_DISPATCH" || e.bodies.Load() != 0 {
			t.Fatalf("%+v bodies %d", r.Error, e.bodies.Load())
		}
	})
}

func TestRenderResult(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"raw string"`, "raw string"},
		{`1.5`, "1.5"},
		{`[]`, "[]"},
		{`{"a":{"b":{"c":{"d":{"e":{"f":[1,{"g":2}]}}}}}}`, "{\n  \"a\": {\n    \"b\": {\n      \"c\": {\n        \"d\": {\n          \"e\": {\"f\":[1,{\"g\":2}]}\n        }\n      }\n    }\n  }\n}"},
	} {
		if got := renderResult(jsonv.MustParse(tc.in)); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}
