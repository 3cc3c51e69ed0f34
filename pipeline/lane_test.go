package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// laneLog records a lane's events in order, from any goroutine.
type laneLog struct {
	mu     sync.Mutex
	events []string
}

func (l *laneLog) add(format string, a ...any) {
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf(format, a...))
	l.mu.Unlock()
}

func (l *laneLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// laneEnv has a parallel-safe tool "safe" and an exclusive "excl", both
// sleeping for the "ms" argument and tracking how many run at once.
func laneEnv(t *testing.T) (*env, *laneLog, *atomic.Int32) {
	e := newEnv(t)
	log := &laneLog{}
	var running, peak atomic.Int32
	body := func(name string) execFunc {
		return func(_ context.Context, args jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			id, _ := args.Get("id")
			log.add("body %s %s (running %d)", name, id.String(), n)
			ms, _ := args.Get("ms")
			d, _ := ms.Int()
			time.Sleep(time.Duration(d) * time.Millisecond)
			running.Add(-1)
			return args, nil
		}
	}
	e.tool("safe", body("safe"), func(t *registry.Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } })
	e.tool("excl", body("excl"))
	e.p.OnPostExecute(nil, func(_ context.Context, x registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
		log.add("post %s", x.CallID)
		return next()
	})
	return e, log, &peak
}

func laneCall(e *env, id, name string, ms int) Call {
	return Call{CallID: id, Name: name, Scope: e.scope, Arguments: fmt.Appendf(nil, `{"id":%q,"ms":%d}`, id, ms)}
}

func TestLane(t *testing.T) {
	t.Run("20 parallel calls respect the pool and commit in order", func(t *testing.T) {
		e, _, peak := laneEnv(t)
		lane := e.p.NewLane(context.Background(), LaneOptions{MaxParallel: 4})
		var commits []string
		var wg sync.WaitGroup
		for i := range 20 {
			id := fmt.Sprintf("c%02d", i)
			wg.Add(1)
			lane.Submit(laneCall(e, id, "safe", 20-i), func(r registry.Result, abandoned bool) {
				defer wg.Done()
				if r.IsError || abandoned {
					t.Errorf("%s: %+v abandoned=%v", id, r.Error, abandoned)
				}
				commits = append(commits, id) // the lane's goroutine only
			})
		}
		wg.Wait() // as a program awaits its calls before it settles
		lane.Close()
		if len(commits) != 20 || !slices.IsSorted(commits) {
			t.Errorf("commits %v", commits)
		}
		if p := peak.Load(); p > 4 || p < 2 {
			t.Errorf("peak parallelism %d, want 2..4", p)
		}
	})
	t.Run("an exclusive call runs alone and holds its barrier through its commit", func(t *testing.T) {
		e, log, _ := laneEnv(t)
		lane := e.p.NewLane(context.Background(), LaneOptions{})
		var wg sync.WaitGroup
		for _, c := range []Call{laneCall(e, "a", "safe", 30), laneCall(e, "b", "safe", 10), laneCall(e, "x", "excl", 10), laneCall(e, "d", "safe", 1)} {
			wg.Add(1)
			lane.Submit(c, func(registry.Result, bool) { log.add("commit %s", c.CallID); wg.Done() })
		}
		wg.Wait()
		lane.Close()
		got := log.get()
		at := func(s string) int { return slices.Index(got, s) }
		if at(`body excl "x" (running 1)`) < 0 || at(`body excl "x" (running 1)`) < at("commit b") {
			t.Errorf("the exclusive call did not run alone after the pool drained: %v", got)
		}
		if at(`body safe "d" (running 1)`) < at("commit x") || at("post x") > at("commit x") {
			t.Errorf("the next call started before the exclusive call's commit: %v", got)
		}
		var commits []string
		for _, ev := range got {
			if id, ok := strings.CutPrefix(ev, "commit "); ok {
				commits = append(commits, id)
			}
		}
		if !slices.Equal(commits, []string{"a", "b", "x", "d"}) {
			t.Errorf("commits %v", commits)
		}
	})
	t.Run("close abandons what has not started and commits what has", func(t *testing.T) {
		e, _, _ := laneEnv(t)
		lane := e.p.NewLane(context.Background(), LaneOptions{MaxParallel: 1})
		var mu sync.Mutex
		ended := map[string]bool{} // id → abandoned
		started := make(chan struct{})
		e.p.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
			if x.CallID == "first" {
				close(started)
			}
			return next()
		})
		for _, id := range []string{"first", "queued1", "queued2"} {
			lane.Submit(laneCall(e, id, "safe", 50), func(r registry.Result, abandoned bool) {
				mu.Lock()
				ended[id] = abandoned
				mu.Unlock()
			})
		}
		<-started
		time.Sleep(5 * time.Millisecond) // first is in its body; the pool is full
		lane.Close()
		late := false
		lane.Submit(laneCall(e, "late", "safe", 1), func(_ registry.Result, abandoned bool) { late = abandoned })
		if ended["first"] || !ended["queued2"] || !late {
			t.Errorf("ended %v, late abandoned %v", ended, late)
		}
	})
	t.Run("a cancelled lane abandons what it has not started", func(t *testing.T) {
		e, log, _ := laneEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		lane := e.p.NewLane(ctx, LaneOptions{OnStart: func(c Call) { log.add("start %s", c.CallID) }})
		abandoned := make(chan bool, 1)
		lane.Submit(laneCall(e, "a", "safe", 1), func(_ registry.Result, a bool) { abandoned <- a })
		if !<-abandoned {
			t.Error("the call was not abandoned")
		}
		lane.Close()
		if got := log.get(); len(got) != 0 {
			t.Errorf("stages ran: %v", got)
		}
	})
	t.Run("held calls wait for Yield; a submitter that never yields never starts them", func(t *testing.T) {
		e, log, _ := laneEnv(t)
		lane := e.p.NewLane(context.Background(), LaneOptions{HoldUntilYield: true, OnStart: func(c Call) { log.add("start %s", c.CallID) }})
		ended := make(chan string, 3)
		commit := func(id string) LaneCommit {
			return func(_ registry.Result, abandoned bool) {
				if abandoned {
					ended <- id + " abandoned"
				} else {
					ended <- id + " done"
				}
			}
		}
		// a program's synchronous stretch: three calls, the lane idle at
		// the first (which lasts long enough to be running at the others)
		lane.Submit(laneCall(e, "a", "excl", 100), commit("a"))
		lane.Submit(laneCall(e, "b", "excl", 1), commit("b"))
		lane.Submit(laneCall(e, "c", "safe", 1), commit("c"))
		if got := <-ended; got != "a done" {
			t.Fatalf("first: %s", got)
		}
		time.Sleep(50 * time.Millisecond) // a slow program: still no yield
		if starts := slices.DeleteFunc(log.get(), func(s string) bool { return !strings.HasPrefix(s, "start ") }); !slices.Equal(starts, []string{"start a"}) {
			t.Errorf("started before the yield: %v", starts)
		}
		lane.Yield()
		got := []string{<-ended, <-ended}
		if !slices.Equal(got, []string{"b done", "c done"}) {
			t.Errorf("after the yield: %v", got)
		}
		// the next stretch ends in settlement: the held call is abandoned
		lane.Submit(laneCall(e, "d", "excl", 30), commit("d"))
		lane.Submit(laneCall(e, "e", "safe", 1), commit("e"))
		for !slices.Contains(log.get(), "start d") {
			time.Sleep(time.Millisecond)
		}
		lane.Close()
		got = []string{<-ended, <-ended}
		if !slices.Equal(got, []string{"d done", "e abandoned"}) {
			t.Errorf("at close: %v", got)
		}
	})
}
