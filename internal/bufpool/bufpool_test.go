package bufpool

import "testing"

func TestPool(t *testing.T) {
	t.Run("a buffer comes back empty", func(t *testing.T) {
		b := Get()
		*b = append(*b, "hello"...)
		Put(b)
		for range 10 {
			c := Get()
			if len(*c) != 0 {
				t.Fatalf("got a buffer holding %q", *c)
			}
			Put(c)
		}
	})
	t.Run("a huge buffer is not kept", func(t *testing.T) {
		huge := make([]byte, 0, MaxKept+1)
		Put(&huge)
		for range 100 {
			if c := Get(); cap(*c) > MaxKept {
				t.Fatalf("a %d-byte buffer was kept", cap(*c))
			}
		}
	})
}
