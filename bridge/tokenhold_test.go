package bridge

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dsh-bridge/dsh-bridge/internal/stackreserve"
)

func TestTokenHold(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ran := func(t *testing.T, done chan string, want string) {
		t.Helper()
		select {
		case got := <-done:
			if got != want {
				t.Fatalf("%q ran, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q never ran", want)
		}
	}
	heldCount := func(h *tokenHold) int {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.held)
	}
	t.Run("no batch: at once", func(t *testing.T) {
		var h tokenHold
		done := make(chan string, 1)
		h.run(func() { done <- "a" })
		ran(t, done, "a")
	})
	t.Run("held until the last batch ends", func(t *testing.T) {
		h := tokenHold{hold: time.Hour}
		done := make(chan string, 2)
		h.enter()
		h.enter()
		h.run(func() { done <- "a" })
		h.run(func() { done <- "b" })
		h.leave()
		if n := heldCount(&h); n != 2 {
			t.Fatalf("%d held after one of two batches ended, want 2", n)
		}
		h.leave()
		got := map[string]bool{}
		for range 2 {
			select {
			case s := <-done:
				got[s] = true
			case <-time.After(10 * time.Second):
				t.Fatal("held work never ran")
			}
		}
		if !got["a"] || !got["b"] || heldCount(&h) != 0 {
			t.Errorf("ran %v, %d still held", got, heldCount(&h))
		}
		h.mu.Lock()
		timer := h.timer
		h.mu.Unlock()
		if timer != nil {
			t.Error("the timer outlived what it held")
		}
	})
	t.Run("every piece of a long list runs", func(t *testing.T) {
		h := tokenHold{hold: time.Hour}
		const n = 40
		done := make(chan string, n)
		h.enter()
		for i := range n {
			h.run(func() { done <- string(rune('A' + i)) })
		}
		h.leave()
		got := map[string]bool{}
		for range n {
			select {
			case s := <-done:
				got[s] = true
			case <-time.After(10 * time.Second):
				t.Fatalf("%d of %d pieces ran", len(got), n)
			}
		}
		if len(got) != n {
			t.Errorf("%d distinct pieces ran, want %d", len(got), n)
		}
	})
	t.Run("released by the timer while the batch runs", func(t *testing.T) {
		h := tokenHold{hold: time.Millisecond}
		done := make(chan string, 2)
		h.enter()
		h.run(func() { done <- "a" })
		ran(t, done, "a")
		h.run(func() { done <- "b" }) // held again, with a timer of its own
		ran(t, done, "b")
		h.leave()
	})
	t.Run("work runs on a goroutine grown once", func(t *testing.T) {
		// Lexing and writing a read's tokens is a deep chain: its
		// goroutine starts with stackreserve's stack, at once or held.
		const more = 8 << 10
		for _, held := range []bool{false, true} {
			h := tokenHold{hold: time.Hour}
			fits := make(chan bool, 1)
			if held {
				h.enter()
			}
			h.run(func() { fits <- stackreserve.Fits(more) })
			if held {
				h.leave()
			}
			select {
			case ok := <-fits:
				if !ok {
					t.Errorf("held=%v: the work's stack was grown again", held)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("held=%v: the work never ran", held)
			}
		}
	})
}
