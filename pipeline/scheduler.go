package pipeline

import (
	"context"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// BatchOptions configure ExecuteBatch.
type BatchOptions struct {
	// MaxParallel bounds how many parallel-safe calls dispatch at once
	// (default 10; 1 is serial).
	MaxParallel int
	// OnState, when set, hears each call's progress: Queued for every call
	// up front, AwaitingApproval when a person is asked, Running just
	// before dispatch, and Finished with the committed result (res is nil
	// otherwise). It is never called concurrently, and in an order
	// consistent with each call's stages; it is called from the goroutine
	// that called ExecuteBatch, except Running under the pipeline's
	// admission (WithAdmission), which comes from the call's own goroutine
	// once it is admitted (until then the call stays Queued).
	OnState func(index int, state State, res *registry.Result)
}

// ExecuteBatch runs the calls of one model turn and returns their results
// in model order. Consecutive parallel-safe calls form a group that runs as
// a rolling pool bounded by MaxParallel; an exclusive call is a barrier that
// runs alone once everything before it has been committed. Each call is
// classified just before it starts. Only dispatch and the tool body
// overlap: pre-execute (and so approvals) and post-execute run on the
// caller's goroutine, strictly in model order, and results are committed in
// model order. Every call gets a result, cancelled ones included.
func (p *Pipeline) ExecuteBatch(ctx context.Context, calls []Call, opts BatchOptions) []registry.Result {
	limit := opts.MaxParallel
	if limit <= 0 {
		limit = 10
	}
	var notifyMu sync.Mutex // OnState is never called concurrently
	notify := func(i int, s State, res *registry.Result) {
		if opts.OnState != nil {
			notifyMu.Lock()
			defer notifyMu.Unlock()
			opts.OnState(i, s, res)
		}
	}
	for i := range calls {
		notify(i, Queued, nil)
	}
	results := make([]registry.Result, len(calls))
	runs := make([]*run, len(calls))
	finished := make([]bool, len(calls))
	done := make(chan int, len(calls)) // dispatched indexes, as they finish
	adm := p.admission
	// admitted[i] is closed once call i has been admitted or needs no
	// admission: a parallel-safe call waits for the one before it, so a
	// batch's calls are admitted, and reported Running, in model order.
	admitted := make([]chan struct{}, len(calls))
	for i := range admitted {
		admitted[i] = make(chan struct{})
	}
	inFlight, next := 0, 0 // next: the commit cursor

	waitOne := func() {
		i := <-done
		finished[i] = true
		inFlight--
	}
	// commitReady commits what can be: it first takes every call that has
	// finished meanwhile, so that a finished call is committed (and its
	// completion sent) as soon as this goroutine comes by, not only once
	// it has run out of calls to start.
	commitReady := func() {
		for taken := false; !taken; {
			select {
			case i := <-done:
				finished[i] = true
				inFlight--
			default:
				taken = true
			}
		}
		for next < len(calls) && runs[next] != nil && finished[next] {
			res := runs[next].finalize()
			results[next] = res
			notify(next, Finished, &res)
			next++
		}
	}
	drain := func() {
		for inFlight > 0 {
			waitOne()
			commitReady()
		}
		commitReady()
	}

	for i, call := range calls {
		mode, args := p.classify(call)
		call.Args = args
		if mode == registry.Exclusive {
			drain()
		}
		r := p.prepare(ctx, call, func(s State) { notify(i, s, nil) })
		runs[i] = r
		if r.stage != stageDispatch {
			close(admitted[i])
			finished[i] = true
			commitReady()
			continue
		}
		if mode == registry.Exclusive {
			release := adm.Acquire(ctx)
			close(admitted[i])
			notify(i, Running, nil)
			r.safeDispatch()
			release()
			finished[i] = true
			commitReady()
			continue
		}
		for inFlight >= limit {
			waitOne()
			commitReady()
		}
		inFlight++
		if adm == nil {
			close(admitted[i])
			notify(i, Running, nil)
		}
		go func() { // owned by this batch: drain waits for it
			defer func() { done <- i }()
			if adm != nil {
				// Admitted from here, not from the batch's goroutine, which
				// may be waiting on a person's approval for a later call.
				if i > 0 {
					<-admitted[i-1]
				}
				release := adm.Acquire(ctx)
				defer release()
				close(admitted[i])
				notify(i, Running, nil)
			}
			r.safeDispatch()
		}()
		commitReady()
	}
	drain()
	return results
}

// classify materializes the call's arguments (once: prepare reuses them)
// and asks the registry for its execution mode; unparsable arguments are
// exclusive, and prepare reports them.
func (p *Pipeline) classify(call Call) (registry.Mode, jsonv.Value) {
	args := call.Args
	if !args.IsValid() {
		v, ok := parseArgs(call.Arguments)
		if !ok {
			return registry.Exclusive, jsonv.Value{}
		}
		args = v
	}
	return p.reg.ExecutionMode(call.Name, args, call.Scope), args
}
