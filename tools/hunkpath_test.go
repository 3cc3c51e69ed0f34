package tools

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/views"
)

// The card keeps an absolute path as the model wrote it, the tool cleans
// it: a selection of one file matches under either spelling, and of
// another file never.
func TestApplySelectionComparesCleanedPaths(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	after := strings.Replace(before, "b\n", "B\n", 1)
	hunks := views.Change("x", before, after).Hunks
	root := filepath.FromSlash("/ws")
	for _, tc := range []struct {
		name, card, tool string
		ok               bool
	}{
		{"same", root + "/a.txt", root + "/a.txt", true},
		{"dot segment on the card", root + "/./a.txt", root + "/a.txt", true},
		{"dot-dot and doubled separator", root + "/sub/..//a.txt", root + "/a.txt", true},
		{"another file", root + "/b.txt", root + "/a.txt", false},
		{"another file through dot-dot", root + "/sub/../b.txt", root + "/a.txt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := NewHunkSelection(tc.card, hunks, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := applySelection(sel, tc.tool, before)
			if tc.ok && (err != nil || got != after) {
				t.Errorf("applySelection(%q vs %q) = %q, %v; want the hunk applied", tc.card, tc.tool, got, err)
			}
			if !tc.ok && err == nil {
				t.Errorf("applySelection(%q vs %q) applied a selection of another file", tc.card, tc.tool)
			}
		})
	}
}
