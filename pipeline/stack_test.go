package pipeline

import (
	"context"
	"sync"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/stackreserve"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestCallGoroutines_StackGrownOnce checks that the goroutines a batch and
// a lane start for parallel calls begin with a stack the size of
// stackreserve's, so that a body's deep chain (the tools' JSON encoders,
// the host's checks) never makes the runtime copy the stack: the body
// reports whether 4 KiB more of stack ran in place.
func TestCallGoroutines_StackGrownOnce(t *testing.T) {
	const more = 4 << 10 // more than a plain call goroutine has left when its body starts (its chain fills most of 8 KiB)
	newDeepEnv := func(t *testing.T) *env {
		e := newEnv(t)
		e.tool("deep", func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			return jsonv.FromGo(stackreserve.Fits(more))
		}, func(t *registry.Tool) { t.IsConcurrencySafe = func(jsonv.Value) bool { return true } })
		return e
	}
	check := func(t *testing.T, i int, r registry.Result) {
		t.Helper()
		if r.IsError {
			t.Fatalf("call %d: %v", i, r.Error)
		}
		if r.Value.Kind() != jsonv.Bool || !r.Value.Bool() {
			t.Errorf("call %d: its goroutine's stack was grown again inside the body", i)
		}
	}
	t.Run("batch", func(t *testing.T) {
		e := newDeepEnv(t)
		batch := make([]Call, 3)
		for i := range batch {
			batch[i] = Call{CallID: string(rune('a' + i)), Name: "deep", Scope: e.scope, Arguments: []byte(`{}`)}
		}
		for i, r := range e.p.ExecuteBatch(context.Background(), batch, BatchOptions{MaxParallel: 3}) {
			check(t, i, r)
		}
	})
	t.Run("lane", func(t *testing.T) {
		e := newDeepEnv(t)
		lane := e.p.NewLane(context.Background(), LaneOptions{MaxParallel: 3})
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			results []registry.Result
		)
		for i := range 3 {
			wg.Add(1)
			lane.Submit(Call{CallID: string(rune('a' + i)), Name: "deep", Scope: e.scope, Arguments: []byte(`{}`)}, func(r registry.Result, _ bool) {
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				wg.Done()
			})
		}
		wg.Wait()
		lane.Close()
		for i, r := range results {
			check(t, i, r)
		}
	})
}
