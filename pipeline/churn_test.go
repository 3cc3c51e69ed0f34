package pipeline

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestListenerChurn runs parallel batches while other goroutines add and
// remove listeners of every kind, as sessions opening and closing do. No
// call may panic or fail, and -race must stay quiet.
func TestListenerChurn(t *testing.T) {
	e := newEnv(t)
	e.tool("read", func(ctx context.Context, args jsonv.Value, _ registry.RunContext) (jsonv.Value, error) {
		time.Sleep(50 * time.Microsecond)
		return args, nil
	}, func(tl *registry.Tool) { tl.IsConcurrencySafe = func(jsonv.Value) bool { return true } })
	stop := make(chan struct{})
	var churners sync.WaitGroup
	var churned atomic.Int64
	for g := range 4 {
		churners.Add(1)
		go func() {
			defer churners.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				scope := e.scope
				if g%2 == 1 {
					scope = nil
				}
				removes := []func(){
					e.p.OnPreExecute(scope, func(_ context.Context, _ registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
						return next()
					}),
					e.p.AddGuard(scope, func(registry.Execution) string { return "" }),
					e.p.WrapExecute(scope, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
						return next(ctx), nil
					}),
					e.p.OnPostExecute(scope, func(_ context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
						return next()
					}),
					e.p.OnResult(scope, func(registry.Execution, registry.Result) {}),
				}
				for _, r := range removes {
					r()
				}
				churned.Add(1)
			}
		}()
	}
	calls := make([]Call, 16)
	for i := range calls {
		calls[i] = Call{CallID: fmt.Sprintf("c%d", i), Name: "read", Arguments: []byte(`{"n":1}`), Scope: e.scope}
	}
	deadline := time.Now().Add(1500 * time.Millisecond)
	batches := 0
	for time.Now().Before(deadline) {
		for i, r := range e.p.ExecuteBatch(context.Background(), calls, BatchOptions{MaxParallel: 8}) {
			if r.IsError {
				t.Fatalf("batch %d call %d failed: %+v %v", batches, i, r.Error, r.Content)
			}
		}
		batches++
	}
	close(stop)
	churners.Wait()
	if batches < 5 || churned.Load() < 100 {
		t.Errorf("too little overlap to mean anything: %d batches, %d churns", batches, churned.Load())
	}
}
