package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// schedEnv registers "par" (parallel-safe) and "ex" (exclusive) tools whose
// bodies record start and end, sleep for args.ms, and track concurrency.
type schedEnv struct {
	*env
	rec              recorder
	running, maxSeen atomic.Int32
}

func newSchedEnv(t *testing.T, opts ...Option) *schedEnv {
	s := &schedEnv{env: newEnv(t, opts...)}
	body := func(_ context.Context, args jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
		id := run.Execution().CallID
		n := s.running.Add(1)
		for {
			m := s.maxSeen.Load()
			if n <= m || s.maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		s.rec.add("start " + id)
		ms, _ := args.Get("ms")
		d, _ := ms.Int()
		time.Sleep(time.Duration(d) * time.Millisecond)
		s.rec.add("end " + id)
		s.running.Add(-1)
		return jsonv.MustString(id), nil
	}
	s.tool("par", body, func(t *registry.Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } })
	s.tool("ex", body)
	return s
}

func calls(spec ...string) []Call {
	out := make([]Call, len(spec))
	for i, sp := range spec {
		var name string
		var ms int
		fmt.Sscanf(sp, "%s %d", &name, &ms)
		out[i] = Call{CallID: strconv.Itoa(i), Name: name, Arguments: []byte(`{"ms":` + strconv.Itoa(ms) + `}`)}
	}
	return out
}

func (s *schedEnv) scoped(cs []Call) []Call {
	for i := range cs {
		cs[i].Scope = s.scope
	}
	return cs
}

func values(rs []registry.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		if r.IsError {
			out[i] = "error: " + r.Error.Message
		} else {
			out[i] = r.Value.Str()
		}
	}
	return out
}

func indexOf(log []string, s string) int { return slices.Index(log, s) }

func TestBatch_OrderAndPooling(t *testing.T) {
	t.Run("results in model order though bodies finish out of order", func(t *testing.T) {
		s := newSchedEnv(t)
		rs := s.p.ExecuteBatch(context.Background(), calls("par 40", "par 20", "par 0"), BatchOptions{})
		if got := values(rs); !slices.Equal(got, []string{"0", "1", "2"}) {
			t.Errorf("results %v", got)
		}
		log := s.rec.got()
		if indexOf(log, "end 2") > indexOf(log, "end 0") {
			t.Errorf("parallel bodies did not overlap: %v", log)
		}
	})
	for _, tc := range []struct {
		name    string
		max     int
		wantMax int32
	}{
		{"default pool overlaps all", 0, 5},
		{"pool bounded by MaxParallel", 2, 2},
		{"MaxParallel 1 is serial", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSchedEnv(t)
			s.p.ExecuteBatch(context.Background(), calls("par 30", "par 30", "par 30", "par 30", "par 30"), BatchOptions{MaxParallel: tc.max})
			if got := s.maxSeen.Load(); got != tc.wantMax {
				t.Errorf("max concurrency %d, want %d", got, tc.wantMax)
			}
		})
	}
	t.Run("exclusive call is a barrier", func(t *testing.T) {
		s := newSchedEnv(t)
		rs := s.p.ExecuteBatch(context.Background(), calls("par 30", "par 10", "ex 0", "par 0"), BatchOptions{})
		log := s.rec.got()
		if indexOf(log, "start 2") < indexOf(log, "end 0") || indexOf(log, "start 2") < indexOf(log, "end 1") {
			t.Errorf("exclusive call started before the group drained: %v", log)
		}
		if indexOf(log, "start 3") < indexOf(log, "end 2") {
			t.Errorf("call after the barrier started early: %v", log)
		}
		if got := values(rs); !slices.Equal(got, []string{"0", "1", "2", "3"}) {
			t.Errorf("results %v", got)
		}
		if s.maxSeen.Load() != 2 {
			t.Errorf("max concurrency %d, want 2", s.maxSeen.Load())
		}
	})
	t.Run("a slow parallel call does not block its siblings", func(t *testing.T) {
		s := newSchedEnv(t)
		s.p.ExecuteBatch(context.Background(), calls("par 80", "par 0", "par 0", "par 0"), BatchOptions{})
		log := s.rec.got()
		for _, id := range []string{"1", "2", "3"} {
			if indexOf(log, "end "+id) > indexOf(log, "end 0") {
				t.Errorf("sibling %s waited for the slow call: %v", id, log)
			}
		}
	})
	t.Run("empty batch", func(t *testing.T) {
		s := newSchedEnv(t)
		if rs := s.p.ExecuteBatch(context.Background(), nil, BatchOptions{}); len(rs) != 0 {
			t.Errorf("got %d results", len(rs))
		}
	})
}

func TestBatch_LazyClassification(t *testing.T) {
	s := newSchedEnv(t)
	var flip atomic.Bool
	s.tool("flippy", func(_ context.Context, _ jsonv.Value, run registry.RunContext) (jsonv.Value, error) {
		s.rec.add("body " + run.Execution().CallID)
		flip.Store(true)
		return jsonv.NullValue(), nil
	}, func(t *registry.Tool) {
		t.IsConcurrencySafe = func(jsonv.Value) bool {
			s.rec.add(fmt.Sprintf("classify parallel=%v", flip.Load()))
			return flip.Load()
		}
	})
	cs := []Call{{CallID: "a", Name: "flippy"}, {CallID: "b", Name: "flippy"}}
	s.p.ExecuteBatch(context.Background(), cs, BatchOptions{})
	// a is exclusive; its body makes b parallel-safe. Classifying both up
	// front would give two "parallel=false" lines before "body a".
	want := []string{"classify parallel=false", "body a", "classify parallel=true", "body b"}
	if got := s.rec.got(); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v (each call classified just before it starts)", got, want)
	}
}

func TestBatch_PolicyInModelOrder(t *testing.T) {
	a := &approver{outcome: AllowedOnce}
	s := newSchedEnv(t, WithApprover(a))
	var pre, post []string
	s.p.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
		pre = append(pre, x.CallID) // no lock: must never run concurrently
		if x.CallID == "1" {
			return AskCall("ask for call 1"), nil
		}
		if x.CallID == "3" {
			return DenyCall("no 3"), nil
		}
		return next()
	})
	s.p.OnPostExecute(nil, func(_ context.Context, x registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
		post = append(post, x.CallID)
		return next()
	})
	var states []string
	rs := s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 30", "par 0", "par 10", "par 0", "par 0")), BatchOptions{
		OnState: func(i int, st State, res *registry.Result) {
			if (st == Finished) != (res != nil) {
				t.Errorf("state %v with result %v", st, res)
			}
			states = append(states, fmt.Sprintf("%d:%v", i, st))
		},
	})
	order := []string{"0", "1", "2", "3", "4"}
	if !slices.Equal(pre, order) || !slices.Equal(post, order) {
		t.Errorf("pre %v post %v, want model order", pre, post)
	}
	if got := values(rs); !slices.Equal(got, []string{"0", "1", "2", "error: no 3", "4"}) {
		t.Errorf("results %v", got)
	}
	if a.count() != 1 {
		t.Errorf("approver asked %d times", a.count())
	}
	for _, want := range [][2]string{{"0:queued", "4:queued"}, {"4:queued", "1:awaiting_approval"}, {"1:awaiting_approval", "1:running"}, {"0:finished", "1:finished"}, {"3:finished", "4:finished"}} {
		if indexOf(states, want[0]) < 0 || indexOf(states, want[0]) > indexOf(states, want[1]) {
			t.Errorf("%s should come before %s in %v", want[0], want[1], states)
		}
	}
	if indexOf(states, "3:running") >= 0 {
		t.Errorf("a denied call was reported running: %v", states)
	}
}

func TestBatch_CancellationAndBadCalls(t *testing.T) {
	t.Run("cancelled mid-batch: every call still gets a result", func(t *testing.T) {
		s := newSchedEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		s.tool("stopper", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			cancel()
			return jsonv.MustString("stopper"), nil
		})
		cs := append(calls("par 0"), Call{CallID: "s", Name: "stopper"})
		cs = append(cs, calls("par 0", "ex 0")...)
		rs := s.p.ExecuteBatch(ctx, cs, BatchOptions{})
		want := []string{"0", "error: tool call aborted", "error: tool call aborted before dispatch", "error: tool call aborted before dispatch"}
		if got := values(rs); !slices.Equal(got, want) {
			t.Errorf("results %v, want %v", got, want)
		}
	})
	t.Run("malformed arguments and unknown tools land in their slots", func(t *testing.T) {
		s := newSchedEnv(t)
		cs := calls("par 10", "par 0")
		cs = slices.Insert(cs, 1, Call{CallID: "bad", Name: "par", Arguments: []byte(`{"ms":`)}, Call{CallID: "u", Name: "nope"})
		rs := s.p.ExecuteBatch(context.Background(), cs, BatchOptions{})
		want := []string{"0", "error: tool execution arguments must be losslessly JSON-serializable", `error: unknown tool "nope"`, "1"}
		if got := values(rs); !slices.Equal(got, want) {
			t.Errorf("results %v, want %v", got, want)
		}
	})
	t.Run("many calls through a small pool", func(t *testing.T) {
		s := newSchedEnv(t)
		var cs []Call
		for i := range 300 {
			name := "par"
			if i%50 == 49 {
				name = "ex"
			}
			cs = append(cs, Call{CallID: strconv.Itoa(i), Name: name, Arguments: []byte(`{"ms":0}`)})
		}
		rs := s.p.ExecuteBatch(context.Background(), cs, BatchOptions{MaxParallel: 4})
		for i, r := range rs {
			if r.IsError || r.Value.Str() != strconv.Itoa(i) {
				t.Fatalf("result %d = %v", i, values(rs[i:i+1]))
			}
		}
		if s.maxSeen.Load() > 4 {
			t.Errorf("pool exceeded: %d", s.maxSeen.Load())
		}
	})
	t.Run("concurrent batches share a pipeline", func(t *testing.T) {
		s := newSchedEnv(t)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				rs := s.p.ExecuteBatch(context.Background(), calls("par 5", "ex 0", "par 5"), BatchOptions{})
				if got := values(rs); !slices.Equal(got, []string{"0", "1", "2"}) {
					t.Errorf("results %v", got)
				}
			})
		}
		wg.Wait()
	})
}

// A call that has finished is committed (and reported Finished) the next
// time the batch comes by, not only once the batch has started every call:
// here call 0's body ends while call 1 is being prepared, and call 0 must
// be Finished before call 2's pre-execute runs.
func TestBatch_CommitsFinishedCallsBetweenStarts(t *testing.T) {
	s := newSchedEnv(t)
	var log recorder
	before := runtime.NumGoroutine()
	s.p.OnPreExecute(nil, func(_ context.Context, x registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
		log.add("pre " + x.CallID)
		if x.CallID == "1" {
			// Call 0 (0 ms) ends meanwhile: its goroutine hands it back
			// (on a buffered channel) and exits, which is what is awaited.
			deadline := time.Now().Add(5 * time.Second)
			for (indexOf(s.rec.got(), "end 0") < 0 || runtime.NumGoroutine() > before) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}
		return next()
	})
	rs := s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 0", "par 0", "par 0")), BatchOptions{OnState: log.onState})
	if got := values(rs); !slices.Equal(got, []string{"0", "1", "2"}) {
		t.Fatalf("results %v", got)
	}
	states := log.got()
	if f, p := indexOf(states, "0:finished"), indexOf(states, "pre 2"); f < 0 || f > p {
		t.Errorf("call 0 finished after call 2 was prepared: %v", states)
	}
}

// TestBatch_CommitsFinishedCallsWhileDraining: while the batch drains its
// pool before an exclusive call, a call that finishes is committed (and
// reported Finished) at once, not when the whole pool has ended.
func TestBatch_CommitsFinishedCallsWhileDraining(t *testing.T) {
	s := newSchedEnv(t)
	started, committed := make(chan struct{}), make(chan struct{})
	parallel := func(t *registry.Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } }
	s.tool("first", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
		<-started
		time.Sleep(20 * time.Millisecond) // most likely, the batch is draining by now
		return jsonv.MustString("first"), nil
	}, parallel)
	s.tool("second", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
		close(started)
		select {
		case <-committed:
			return jsonv.MustString("after the first's commit"), nil
		case <-time.After(5 * time.Second):
			return jsonv.MustString("the first was not committed"), nil
		}
	}, parallel)
	cs := s.scoped([]Call{{CallID: "0", Name: "first"}, {CallID: "1", Name: "second"}, {CallID: "2", Name: "ex", Arguments: []byte(`{"ms":0}`)}})
	rs := s.p.ExecuteBatch(context.Background(), cs, BatchOptions{OnState: func(i int, st State, _ *registry.Result) {
		if i == 0 && st == Finished {
			close(committed)
		}
	}})
	if got := values(rs); !slices.Equal(got, []string{"first", "after the first's commit", "2"}) {
		t.Errorf("results %v", got)
	}
}
