package stackreserve

import "testing"

// depth is how much stack TestGrow's chain uses below its goroutine's
// first frame: well inside Size, well past a fresh goroutine's stack.
const depth = Size / 2

func TestGrow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		grow      bool
		wantMoved bool
	}{
		// The control: without Grow the chain moves a fresh goroutine's
		// stack, which shows that Fits can see it.
		{"fresh goroutine", false, true},
		{"after Grow", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan bool)
			go func() {
				if tc.grow {
					Grow()
				}
				got <- !Fits(depth)
			}()
			if m := <-got; m != tc.wantMoved {
				t.Errorf("stack moved = %v, want %v", m, tc.wantMoved)
			}
		})
	}
}

// BenchmarkGoroutine measures a goroutine that runs a chain of depth bytes,
// started plainly and after Grow (the cost it replaces is the chain's
// stack copies, each of which walks every frame).
func BenchmarkGoroutine(b *testing.B) {
	for _, grow := range []bool{false, true} {
		name := "plain"
		if grow {
			name = "grown"
		}
		b.Run(name, func(b *testing.B) {
			done := make(chan byte)
			for b.Loop() {
				go func() {
					if grow {
						Grow()
					}
					done <- chain(depth / chainFrame)
				}()
				<-done
			}
		})
	}
}
