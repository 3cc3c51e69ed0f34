package jsvm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// maxCallStack bounds JavaScript recursion (a RangeError past it).
const maxCallStack = 10000

// wrapPrefix makes the program an async function body; esbuild keeps the
// wrapper's line, so user line n is line n+1 of what runs.
const wrapPrefix = "async function __dsh_program(tools, console) {\n"

// Run transforms the program's TypeScript, runs it in a fresh VM with only
// the tools and console bindings (no require, file system or network), and
// returns when the program settles, fails, times out, outgrows its output
// or heap limits, or ctx ends (kind abort). Each run has its own VM.
// Binding calls still in flight when Run returns are the caller's to
// settle or abandon; their late settlements are ignored.
func Run(ctx context.Context, p coderun.Program) coderun.Outcome {
	p = p.WithDefaults()
	out := &ledger{max: p.MaxOutputBytes, bytes: 2}
	if ctx.Err() != nil {
		return out.fail(coderun.KindAbort, coderun.AbortMessage(ctx))
	}
	js, err := Transform(p.Code)
	if err != nil {
		return out.fail(coderun.KindException, err.Error())
	}
	r := newRun(p, out)
	defer r.close()
	return r.guarded(ctx, js)
}

// guarded runs execute, turning a panic out of the VM (an interrupt that
// surfaces inside a call from Go, which goja does not catch) into the
// outcome of the reason the run was stopped for.
func (r *run) guarded(ctx context.Context, js string) (o coderun.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			if e := r.stopped(ctx); e != nil {
				o = r.out.fail(e.Kind, e.Message)
				return
			}
			o = r.out.fail(coderun.KindException, fmt.Sprint(p))
		}
	}()
	return r.execute(ctx, js)
}

// Transform turns the program into the JavaScript that runs: the body
// wrapped in an async function, types stripped by esbuild (ES2017 target,
// an inline source map so that stack lines are the program's own). A
// syntax error names the program's line and column.
func Transform(code string) (string, error) {
	res := api.Transform(wrapPrefix+code+"\n}", api.TransformOptions{
		Loader:     api.LoaderTS,
		Target:     api.ES2017,
		Sourcemap:  api.SourceMapInline,
		Sourcefile: "program.ts",
	})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		if e.Location != nil {
			return "", fmt.Errorf("program.ts:%d:%d: %s", max(e.Location.Line-1, 1), e.Location.Column+1, e.Text)
		}
		return "", errors.New(e.Text)
	}
	return string(res.Code), nil
}

// run is one program's VM and event loop. Everything touching the VM runs
// on the goroutine that called Run; other goroutines only post to it.
type run struct {
	p   coderun.Program
	vm  *goja.Runtime
	out *ledger

	mu     sync.Mutex
	queue  []func()
	closed bool
	wake   chan struct{}

	stop atomic.Pointer[coderun.RunError] // why the run must end now (timeout, abort, heap)

	// Taken before the program runs, which may replace the globals.
	stringify goja.Callable // JSON.stringify
	objProto  *goja.Object  // Object.prototype: plain objects have it
	errClass  goja.Value    // ToolCallError
}

func newRun(p coderun.Program, out *ledger) *run {
	return &run{p: p, out: out, vm: goja.New(), wake: make(chan struct{}, 1)}
}

// post queues fn to run on the VM goroutine; false once the run is over.
func (r *run) post(fn func()) bool {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return false
	}
	r.queue = append(r.queue, fn)
	r.mu.Unlock()
	r.signal()
	return true
}

func (r *run) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *run) close() {
	r.mu.Lock()
	r.closed, r.queue = true, nil
	r.mu.Unlock()
}

// stopped returns why the run must end now, if it must: a halt, or ctx
// ended (its AfterFunc may not have run yet).
func (r *run) stopped(ctx context.Context) *coderun.RunError {
	if e := r.stop.Load(); e != nil {
		return e
	}
	if ctx.Err() != nil {
		r.halt(&coderun.RunError{Kind: coderun.KindAbort, Message: coderun.AbortMessage(ctx)})
		return r.stop.Load()
	}
	return nil
}

// halt ends the run for reason: running JavaScript is interrupted and the
// loop wakes up. The first reason wins.
func (r *run) halt(e *coderun.RunError) {
	if r.stop.CompareAndSwap(nil, e) {
		r.vm.Interrupt(e)
		r.signal()
	}
}

func (r *run) execute(ctx context.Context, js string) coderun.Outcome {
	r.vm.SetMaxCallStackSize(maxCallStack)
	if err := r.install(); err != nil {
		return r.out.fail(coderun.KindException, err.Error())
	}
	timer := time.AfterFunc(r.p.Timeout, func() {
		r.halt(&coderun.RunError{Kind: coderun.KindTimeout, Message: fmt.Sprintf("wall-clock ceiling reached (%dms)", r.p.Timeout.Milliseconds())})
	})
	defer timer.Stop()
	stopCtx := context.AfterFunc(ctx, func() { r.halt(&coderun.RunError{Kind: coderun.KindAbort, Message: coderun.AbortMessage(ctx)}) })
	defer stopCtx()
	watch := r.watchHeap()
	defer watch()

	if _, err := r.vm.RunScript("program.ts", js); err != nil {
		return r.failed(ctx, err)
	}
	main, ok := goja.AssertFunction(r.vm.Get("__dsh_program"))
	if !ok {
		return r.out.fail(coderun.KindException, "the program did not compile to a function")
	}
	tools, console := r.bindings()
	v, err := main(goja.Undefined(), tools, console)
	if err != nil {
		return r.failed(ctx, err)
	}
	promise, ok := v.Export().(*goja.Promise)
	if !ok {
		return r.out.fail(coderun.KindException, "the program did not return a promise")
	}
	r.yield(promise)
	for promise.State() == goja.PromiseStatePending {
		if e := r.stopped(ctx); e != nil {
			return r.out.fail(e.Kind, e.Message)
		}
		<-r.wake
		r.mu.Lock()
		jobs := r.queue
		r.queue = nil
		r.mu.Unlock()
		for _, job := range jobs {
			if ex := r.vm.Try(job); ex != nil {
				return r.failed(ctx, ex)
			}
			if e := r.stopped(ctx); e != nil {
				return r.out.fail(e.Kind, e.Message)
			}
		}
		r.yield(promise)
	}
	if e := r.stopped(ctx); e != nil {
		return r.out.fail(e.Kind, e.Message)
	}
	if promise.State() == goja.PromiseStateRejected {
		return r.out.fail(coderun.KindException, r.describe(promise.Result()))
	}
	res := promise.Result()
	if goja.IsUndefined(res) {
		return r.out.success(jsonv.Value{})
	}
	val, err := r.toJSON(res)
	if err != nil {
		return r.out.fail(coderun.KindInvalidOutput, "program completion must be lossless JSON")
	}
	return r.out.success(val)
}

// yield tells the host that the program handed control back unsettled.
func (r *run) yield(promise *goja.Promise) {
	if r.p.Yield != nil && promise.State() == goja.PromiseStatePending {
		r.p.Yield()
	}
}

// failed turns a Go-side error from the VM into the run's outcome.
func (r *run) failed(ctx context.Context, err error) coderun.Outcome {
	if e := r.stopped(ctx); e != nil {
		return r.out.fail(e.Kind, e.Message)
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return r.out.fail(coderun.KindException, "RangeError: Maximum call stack size exceeded"+cleanStack(so.String()))
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return r.out.fail(coderun.KindException, r.describe(ex.Value()))
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(*coderun.RunError); ok {
			return r.out.fail(e.Kind, e.Message)
		}
	}
	return r.out.fail(coderun.KindException, err.Error())
}

// watchHeap stops the run when the process heap grows by p.HeapHeadroom
// while it runs (a program building a huge array); it returns the stop.
func (r *run) watchHeap() func() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	headroom := r.p.HeapHeadroom
	limit := read() + headroom
	done := make(chan struct{})
	go func() { // owned by execute: stopped by the returned func
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if read() > limit {
					r.halt(&coderun.RunError{Kind: coderun.KindWorkerExit, Message: "heap limit exceeded (" + strconv.FormatUint(headroom>>20, 10) + " MiB)"})
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

var stackPos = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`program\.ts:(\d+):(\d+)(?:\(\d+\))?`) })

// describe renders a thrown value: an Error's stack (its program.ts lines
// mapped back to the program's own), else its string form.
func (r *run) describe(v goja.Value) string {
	var msg string
	ex := r.vm.Try(func() {
		if o, ok := v.(*goja.Object); ok {
			if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
				msg = st.String()
				return
			}
		}
		msg = v.String()
	})
	if ex != nil {
		return "program threw an unrenderable value"
	}
	return cleanStack(msg)
}

// cleanStack maps a stack's program.ts positions back to the program's
// own lines and drops the frames of Go functions (the bindings).
func cleanStack(stack string) string {
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if strings.HasSuffix(l, "(native)") && strings.Contains(l, "github.com/") {
			continue
		}
		kept = append(kept, stackPos().ReplaceAllStringFunc(l, func(m string) string {
			sub := stackPos().FindStringSubmatch(m)
			line, _ := strconv.Atoi(sub[1])
			return "program.ts:" + strconv.Itoa(max(line-1, 1)) + ":" + sub[2]
		}))
	}
	return strings.Join(kept, "\n")
}
