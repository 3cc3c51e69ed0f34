package highlight

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/batchwrite"
)

// countingWriter counts the writes it takes.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	bytes  int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	w.bytes += len(p)
	return len(p), nil
}

func (w *countingWriter) Close() error { return nil }

// The requests of reads that finish together (goroutines one event made
// ready) reach the helper in one write, give or take, not one write each.
func TestProc_RequestsTogether(t *testing.T) {
	const rounds, ready = 50, 10
	writes := 0
	for range rounds {
		w := &countingWriter{}
		p := &proc{stdin: w, out: batchwrite.New(w)}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range ready {
			wg.Go(func() {
				<-start
				if err := p.send(AppendRequest(nil, Request{ID: uint64(i + 1), Path: fmt.Sprintf("/w/%d.go", i), Lines: []string{"package a"}})); err != nil {
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		p.closeInput(5 * time.Second)
		p.closeInput(5 * time.Second) // a second call does nothing
		if want := ready * len(AppendRequest(nil, Request{ID: 1, Path: "/w/0.go", Lines: []string{"package a"}})); w.bytes != want {
			t.Fatalf("%d bytes written, want %d", w.bytes, want)
		}
		writes += w.writes
	}
	if writes > 2*rounds {
		t.Errorf("%d writes for %d rounds of %d requests made together, want at most %d", writes, rounds, ready, 2*rounds)
	}
}

var _ io.WriteCloser = (*countingWriter)(nil)
