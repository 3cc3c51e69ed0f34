package bridge

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// A selection is decoded strictly: every element a JSON integer, nothing
// encoding/json would also turn into an int.
func TestHunkIndices(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []int
		err  error
	}{
		{`[]`, []int{}, nil},
		{`[0]`, []int{0}, nil},
		{`[ 1 , 0 ]`, []int{1, 0}, nil},
		{`[-1]`, []int{-1}, nil}, // an integer: NewHunkSelection says out of range
		{`[10]`, []int{10}, nil},
		{`[null]`, nil, errNotInteger},
		{`[1,null]`, nil, errNotInteger},
		{`[0,null]`, nil, errNotInteger},
		{`[-0]`, nil, errNotInteger},
		{`[01]`, nil, errNotHunkList}, // not JSON
		{`[1.0]`, nil, errNotInteger},
		{`[1e0]`, nil, errNotInteger},
		{`[99999999999999999999]`, nil, errNotInteger},
		{`["0"]`, nil, errNotInteger},
		{`[true]`, nil, errNotInteger},
		{`[[0]]`, nil, errNotInteger},
		{`[{}]`, nil, errNotInteger},
		{`0`, nil, errNotHunkList},
		{`"0"`, nil, errNotHunkList},
		{`{"0":true}`, nil, errNotHunkList},
		{`null`, nil, errNotHunkList},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := hunkIndices(json.RawMessage(tc.raw))
			if !errors.Is(err, tc.err) || !slices.Equal(got, tc.want) || (tc.err == errNotHunkList && errors.Is(err, errNotInteger)) {
				t.Errorf("hunkIndices(%s) = %v, %v; want %v, %v", tc.raw, got, err, tc.want, tc.err)
			}
		})
	}
}

// Only the exact keys _meta, dsh and hunks name a selection.
func TestAnswerHunks(t *testing.T) {
	const outcome = `"outcome":{"outcome":"selected","optionId":"allow_once"}`
	for _, tc := range []struct {
		name, answer, want string
	}{
		{"exact", `{` + outcome + `,"_meta":{"dsh":{"hunks":[0]}}}`, `[0]`},
		{"no _meta", `{` + outcome + `}`, ``},
		{"null", `{` + outcome + `,"_meta":{"dsh":{"hunks":null}}}`, ``},
		{"upper dsh and hunks", `{` + outcome + `,"_meta":{"DSH":{"HUNKS":[0]}}}`, ``},
		{"upper hunks", `{` + outcome + `,"_meta":{"dsh":{"Hunks":[0]}}}`, ``},
		{"upper _meta", `{` + outcome + `,"_META":{"dsh":{"hunks":[0]}}}`, ``},
		{"malformed _meta", `{` + outcome + `,"_meta":[1]}`, ``},
		{"malformed dsh", `{` + outcome + `,"_meta":{"dsh":"x"}}`, ``},
		{"kept raw", `{` + outcome + `,"_meta":{"dsh":{"hunks":[null]}}}`, `[null]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(answerHunks(json.RawMessage(tc.answer))); got != tc.want {
				t.Errorf("answerHunks(%s) = %q, want %q", tc.answer, got, tc.want)
			}
		})
	}
}

// A refusal names what is wrong with the selection.
func TestGrantHunksRefusals(t *testing.T) {
	hunks := make([]views.Hunk, 2)
	for _, tc := range []struct {
		raw, says string
	}{
		{`[0,null]`, "not an integer"},
		{`[null]`, "not an integer"},
		{`[0,0]`, "given twice"},
		{`[2]`, "out of range"},
		{`{"0":true}`, "not a list"},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			a := grantHunks("write", "/ws/a.txt", hunks, json.RawMessage(tc.raw))
			if a.Outcome != pipeline.Rejected || a.Grant != nil || !strings.Contains(a.Reason, tc.says) {
				t.Errorf("grantHunks(%s) = %+v, want a refusal saying %q", tc.raw, a, tc.says)
			}
		})
	}
	if a := grantHunks("write", "/ws/a.txt", hunks, json.RawMessage(`[1]`)); a.Outcome != pipeline.AllowedOnce || a.Grant == nil {
		t.Errorf("grantHunks([1]) = %+v, want a grant", a)
	}
}
