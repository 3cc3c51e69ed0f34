package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/registry"
)

func TestAdmission(t *testing.T) {
	t.Run("bounds the bodies of every batch that shares it", func(t *testing.T) {
		adm := NewAdmission(2, time.Minute)
		s := newSchedEnv(t, WithAdmission(adm))
		var wg sync.WaitGroup
		results := make([][]registry.Result, 3)
		for b := range results {
			wg.Go(func() {
				results[b] = s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 20", "par 20", "par 20", "par 20")),
					BatchOptions{MaxParallel: 4})
			})
		}
		wg.Wait()
		if got := s.maxSeen.Load(); got != 2 {
			t.Errorf("at most %d bodies ran at once, want 2 (three batches of four)", got)
		}
		for b, rs := range results {
			if got := values(rs); !slices.Equal(got, []string{"0", "1", "2", "3"}) {
				t.Errorf("batch %d: %v", b, got)
			}
		}
	})

	t.Run("a call is Running only once admitted", func(t *testing.T) {
		adm := NewAdmission(1, time.Minute)
		s := newSchedEnv(t, WithAdmission(adm))
		hold := adm.Acquire(context.Background()) // another session's body
		var log recorder
		done := make(chan []registry.Result)
		go func() {
			done <- s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 1", "par 1")), BatchOptions{OnState: log.onState})
		}()
		time.Sleep(50 * time.Millisecond)
		if before := log.got(); !slices.Equal(before, []string{"0:queued", "1:queued"}) {
			t.Errorf("before admission: %v, want both queued and nothing running", before)
		}
		hold()
		rs := <-done
		if got := values(rs); !slices.Equal(got, []string{"0", "1"}) {
			t.Errorf("results %v", got)
		}
		states := log.got()
		for i := range 2 {
			run := slices.Index(states, fmt.Sprintf("%d:running", i))
			fin := slices.Index(states, fmt.Sprintf("%d:finished", i))
			if run < 0 || fin < run {
				t.Errorf("call %d: running at %d, finished at %d in %v", i, run, fin, states)
			}
		}
	})

	t.Run("a batch's calls are admitted in model order", func(t *testing.T) {
		adm := NewAdmission(1, time.Minute)
		s := newSchedEnv(t, WithAdmission(adm))
		hold := adm.Acquire(context.Background()) // another session's body
		var log recorder
		done := make(chan []registry.Result)
		go func() {
			done <- s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 1", "par 1", "par 1", "par 1", "par 1", "par 1", "par 1", "par 1")), BatchOptions{
				MaxParallel: 8,
				OnState:     log.onState,
			})
		}()
		time.Sleep(20 * time.Millisecond) // every call waits for the slot
		hold()
		<-done
		var running []string
		for _, e := range log.got() {
			if strings.HasSuffix(e, ":running") {
				running = append(running, e)
			}
		}
		if !slices.Equal(running, []string{"0:running", "1:running", "2:running", "3:running", "4:running", "5:running", "6:running", "7:running"}) {
			t.Errorf("admitted in the order %v, want model order", running)
		}
	})

	t.Run("a call holds its slot only while it dispatches", func(t *testing.T) {
		adm := NewAdmission(1, time.Minute)
		s := newSchedEnv(t, WithAdmission(adm))
		var held []int
		s.p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
			held = append(held, len(adm.slots)) // the commit, on the batch's goroutine
			return next()
		})
		s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 1", "ex 1")), BatchOptions{MaxParallel: 2})
		if !slices.Equal(held, []int{0, 0}) {
			t.Errorf("slots held at each commit: %v, want [0 0]", held)
		}
	})

	t.Run("a long call stops counting after the lease", func(t *testing.T) {
		adm := NewAdmission(1, 20*time.Millisecond)
		s := newSchedEnv(t, WithAdmission(adm))
		long := make(chan []registry.Result)
		go func() {
			long <- s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 400")), BatchOptions{})
		}()
		for !slices.Contains(s.rec.got(), "start 0") {
			time.Sleep(time.Millisecond)
		}
		// another session's short call, while the long one holds the slot
		short := s.p.ExecuteBatch(context.Background(), s.scoped([]Call{{CallID: "short", Name: "par", Arguments: []byte(`{"ms":1}`)}}), BatchOptions{})
		if got := values(short); !slices.Equal(got, []string{"short"}) {
			t.Fatalf("short: %v", got)
		}
		if log := s.rec.got(); slices.Contains(log, "end 0") {
			t.Errorf("the short call waited for the long one: %v", log)
		}
		<-long
	})

	t.Run("admitted in arrival order", func(t *testing.T) {
		adm := NewAdmission(1, time.Minute)
		first := adm.Acquire(context.Background())
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				release := adm.Acquire(context.Background())
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				release()
			})
			time.Sleep(10 * time.Millisecond) // queue them one after another
		}
		first()
		wg.Wait()
		if !slices.Equal(order, []int{0, 1, 2, 3, 4}) {
			t.Errorf("admitted in order %v", order)
		}
	})

	t.Run("a cancelled wait ends the call as cancelled", func(t *testing.T) {
		adm := NewAdmission(1, time.Minute)
		s := newSchedEnv(t, WithAdmission(adm))
		hold := adm.Acquire(context.Background())
		defer hold()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan []registry.Result)
		go func() { done <- s.p.ExecuteBatch(ctx, s.scoped(calls("par 1", "par 1")), BatchOptions{}) }()
		time.Sleep(30 * time.Millisecond)
		cancel()
		select {
		case rs := <-done:
			for i, r := range rs {
				if !r.IsError {
					t.Errorf("call %d: %v, want a cancelled failure", i, values(rs))
				}
			}
			if len(s.rec.got()) != 0 {
				t.Errorf("bodies ran: %v", s.rec.got())
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the batch did not end")
		}
	})

	t.Run("a lane's calls count with the batches' (run_code cannot go around it)", func(t *testing.T) {
		adm := NewAdmission(2, time.Minute)
		s := newSchedEnv(t, WithAdmission(adm))
		var wg sync.WaitGroup
		wg.Go(func() {
			s.p.ExecuteBatch(context.Background(), s.scoped(calls("par 20", "par 20", "par 20")), BatchOptions{MaxParallel: 3})
		})
		lane := s.p.NewLane(context.Background(), LaneOptions{MaxParallel: 4})
		for i := range 4 {
			wg.Add(1)
			c := Call{CallID: "l" + string(rune('0'+i)), Name: "par", Arguments: []byte(`{"ms":20}`), Scope: s.scope}
			lane.Submit(c, func(r registry.Result, abandoned bool) {
				defer wg.Done()
				if r.IsError || abandoned {
					t.Errorf("%s: %+v abandoned=%v", c.CallID, r.Error, abandoned)
				}
			})
		}
		wg.Wait()
		lane.Close()
		if got := s.maxSeen.Load(); got != 2 {
			t.Errorf("at most %d bodies ran at once, want 2 (a batch of three and a lane of four)", got)
		}
	})

	t.Run("release is idempotent and a nil admission admits at once", func(t *testing.T) {
		adm := NewAdmission(1, time.Minute)
		r := adm.Acquire(context.Background())
		r()
		r()
		r2 := adm.Acquire(context.Background())
		r2()
		var none *Admission
		none.Acquire(context.Background())()
	})
}
