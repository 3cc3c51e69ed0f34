package pipeline

import (
	"context"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

// LaneCommit hears how a submitted call ended: its committed result, or
// abandoned when the lane closed before the call started (no stage ran).
type LaneCommit func(r registry.Result, abandoned bool)

// Lane runs calls that arrive one at a time while something else runs (a
// run_code program's sub-calls), with ExecuteBatch's rules (except that a
// call still queued when the lane's context ends is abandoned, not
// started): calls start
// strictly in submission order, each classified when it starts; parallel-
// safe calls run in a rolling pool of MaxParallel; an exclusive call waits
// for the pool to empty, runs alone and holds its barrier until its commit;
// pre-execute (approvals included) and post-execute run on the lane's own
// goroutine; commits happen in submission order. Safe for concurrent use.
type Lane struct {
	p     *Pipeline
	ctx   context.Context
	limit int

	mu      sync.Mutex
	queue   []laneItem // submitted, not started
	closing bool
	hold    bool   // LaneOptions.HoldUntilYield
	yields  uint64 // Yield calls so far
	busy    int    // started, not yet committed
	kick    chan struct{}
	done    chan struct{} // closed when the driver has committed everything
	onStart func(Call)
	onState func(id string, s State)
	stateMu sync.Mutex // onState is never called concurrently
}

type laneItem struct {
	call   Call
	commit LaneCommit
	// held: submitted while the lane was busy, under HoldUntilYield; it may
	// start only once Yield has been called after it was submitted (yield
	// is the count then).
	held  bool
	yield uint64
}

// LaneOptions configure a Lane.
type LaneOptions struct {
	// MaxParallel bounds parallel-safe calls in flight (default 10).
	MaxParallel int
	// OnStart, when set, hears each call as it starts (before its
	// pre-execute), from the lane's goroutine; abandoned calls never start.
	OnStart func(call Call)
	// OnState, when set, hears each call's AwaitingApproval and Running,
	// by call id, never concurrently: from the lane's goroutine, except
	// the Running of a parallel-safe call under the pipeline's admission,
	// which comes from the call's own goroutine once it is admitted.
	OnState func(callID string, s State)
	// HoldUntilYield makes a call submitted while the lane is busy wait,
	// once it could start, until the submitter calls Yield (a program
	// handing control back, as a JavaScript host sees its worker's posted
	// messages in order): so a program that returns without awaiting its
	// calls never starts the queued ones, however the goroutines are
	// scheduled. A call submitted to an idle lane starts at once.
	HoldUntilYield bool
}

// NewLane starts a lane whose calls run under ctx. Close must be called
// exactly once; the lane's goroutine ends after it.
func (p *Pipeline) NewLane(ctx context.Context, opts LaneOptions) *Lane {
	if opts.MaxParallel <= 0 {
		opts.MaxParallel = 10
	}
	l := &Lane{p: p, ctx: ctx, limit: opts.MaxParallel, kick: make(chan struct{}, 1), done: make(chan struct{}), onStart: opts.OnStart, onState: opts.OnState,
		hold: opts.HoldUntilYield}
	go l.drive() // owned by the lane: Close waits for it
	return l
}

// Submit queues a call; commit is called exactly once, on the lane's
// goroutine. A call submitted after Close is abandoned at once.
func (l *Lane) Submit(call Call, commit LaneCommit) {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		commit(registry.Result{}, true)
		return
	}
	held := l.hold && (len(l.queue) > 0 || l.busy > 0)
	l.queue = append(l.queue, laneItem{call: call, commit: commit, held: held, yield: l.yields})
	l.mu.Unlock()
	l.wake()
}

// Yield tells the lane that the submitter has handed control back: the
// calls it held since the last Yield may start (see HoldUntilYield).
func (l *Lane) Yield() {
	l.mu.Lock()
	l.yields++
	l.mu.Unlock()
	l.wake()
}

// Close abandons the calls that have not started, waits until the started
// ones have committed, and returns after every commit callback has run.
func (l *Lane) Close() {
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.wake()
	<-l.done
}

func (l *Lane) wake() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// laneRun is a started call waiting for its commit turn.
type laneRun struct {
	r        *run
	commit   LaneCommit
	finished bool
}

func (l *Lane) state(id string, s State) {
	if l.onState != nil {
		l.stateMu.Lock()
		defer l.stateMu.Unlock()
		l.onState(id, s)
	}
}

// drive is the lane's goroutine: it starts, dispatches and commits.
func (l *Lane) drive() {
	defer close(l.done)
	var started []*laneRun // started, not yet committed, in order
	finishedCh := make(chan *laneRun, l.limit)
	inFlight := 0
	commitReady := func() {
		for len(started) > 0 && started[0].finished {
			lr := started[0]
			started = started[1:]
			lr.commit(lr.r.finalize(), false)
			l.mu.Lock()
			l.busy--
			l.mu.Unlock()
		}
	}
	waitOne := func() {
		lr := <-finishedCh
		lr.finished = true
		inFlight--
		commitReady()
	}
	for {
		l.mu.Lock()
		if len(l.queue) == 0 || (!l.closing && l.queue[0].held && l.queue[0].yield == l.yields) {
			closing := l.closing
			l.mu.Unlock()
			if closing {
				for inFlight > 0 {
					waitOne()
				}
				commitReady()
				return
			}
			select {
			case <-l.kick:
			case lr := <-finishedCh:
				lr.finished = true
				inFlight--
				commitReady()
			}
			continue
		}
		if l.closing {
			abandoned := l.queue
			l.queue = nil
			l.mu.Unlock()
			for inFlight > 0 {
				waitOne()
			}
			commitReady()
			for _, it := range abandoned {
				it.commit(registry.Result{}, true)
			}
			continue
		}
		it := l.queue[0]
		l.queue = l.queue[1:]
		l.busy++
		l.mu.Unlock()
		if l.ctx.Err() != nil {
			// The lane's run is over: what has not started never will.
			it.commit(registry.Result{}, true)
			l.mu.Lock()
			l.busy--
			l.mu.Unlock()
			continue
		}

		mode, args := l.p.classify(it.call)
		it.call.Args = args
		if mode == registry.Exclusive {
			for inFlight > 0 {
				waitOne()
			}
		}
		id := it.call.CallID
		if l.onStart != nil {
			l.onStart(it.call)
		}
		r := l.p.prepare(l.ctx, it.call, func(s State) { l.state(id, s) })
		lr := &laneRun{r: r, commit: it.commit}
		started = append(started, lr)
		if r.stage != stageDispatch {
			lr.finished = true
			commitReady()
			continue
		}
		if mode == registry.Exclusive {
			release := l.p.admission.Acquire(l.ctx)
			l.state(id, Running)
			r.safeDispatch()
			release()
			lr.finished = true
			commitReady()
			continue
		}
		for inFlight >= l.limit {
			waitOne()
		}
		inFlight++
		go func() { // owned by the lane: drained before drive returns
			release := l.p.admission.Acquire(l.ctx)
			l.state(id, Running)
			r.safeDispatch()
			release()
			finishedCh <- lr
		}()
	}
}
