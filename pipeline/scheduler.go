package pipeline

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/dsh-bridge/dsh-bridge/internal/stackreserve"
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
	done := make(chan int, len(calls)) // dispatched indexes, as they finish
	adm := p.admission
	finished := make([]bool, len(calls))
	// The call next in line to commit keeps its admission until it has
	// committed and been reported Finished (or its lease ends), so that
	// what a burst makes wait is whole calls, not the completions of calls
	// already shown running. A call that finishes while an earlier one has
	// not committed frees its slot at once: holding it for that one could
	// leave every slot to calls waiting on calls not yet admitted.
	releases := make([]func(), len(calls))
	// admitted[i] is closed once call i holds its slot or needs none: a
	// batch's calls are admitted in model order, so that a later call never
	// holds a slot while waiting to commit behind an earlier one that waits
	// for a slot.
	admitted := make([]chan struct{}, len(calls))
	for i := range admitted {
		admitted[i] = make(chan struct{})
	}
	var nextCommit atomic.Int64 // next, for the calls' goroutines
	inFlight, next := 0, 0      // next: the commit cursor

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
			if releases[next] != nil {
				releases[next]()
			}
			next++
			nextCommit.Store(int64(next))
		}
	}
	drain := func() {
		for inFlight > 0 {
			waitOne()
			commitReady() // frees the slot a call next in line holds
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
			releases[i] = adm.Acquire(ctx)
			close(admitted[i])
			notify(i, Running, nil)
			r.safeDispatch()
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
			stackreserve.Grow() // a call's chain is deep: grow once, not three times
			defer func() { done <- i }()
			if adm != nil {
				// Running once admitted, from here: the batch goroutine may
				// be waiting on a person's approval for a later call. The
				// batch releases the slot at the call's commit (the send on
				// done hands releases[i] over).
				if i > 0 {
					<-admitted[i-1]
				}
				release := adm.Acquire(ctx)
				close(admitted[i])
				notify(i, Running, nil)
				defer func() {
					if nextCommit.Load() == int64(i) {
						releases[i] = release // the batch frees it at the commit
					} else {
						release()
					}
				}()
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
