package bridge

import (
	"io"
	"log/slog"
	"testing"
)

// TestSession_RefusedBody: after refusals of bodies at different sizes,
// in either order, requests are compacted to stay under the smallest;
// a size that is no size changes nothing.
func TestSession_RefusedBody(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refused []int
		want    int
	}{
		{"one refusal", []int{4000}, 4000},
		{"smaller then larger", []int{1000, 2000}, 1000},
		{"larger then smaller", []int{2000, 1000}, 1000},
		{"the same size twice", []int{1500, 1500}, 1500},
		{"one byte smaller", []int{1500, 1499}, 1499},
		{"one byte larger", []int{1500, 1501}, 1500},
		{"an unknown size keeps the cap", []int{1500, 0, -1}, 1500},
		{"an unknown size alone", []int{0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := &Session{srv: &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
			for _, n := range tc.refused {
				ss.refusedBody(n)
			}
			if got := ss.model.maxBody; got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
