package tools

import (
	"fmt"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func mustArgs(s string) jsonv.Value { return jsonv.MustParse(s) }

func bashArgsJSON(cmd string, extra string) string {
	q := fmt.Sprintf("%q", cmd)
	return `{"command":` + q + `,"description":"test"` + extra + `}`
}

// TestBash_TimeoutCap pins the timeout a command runs with at the cap's
// edge: asking for more than BashMaxTimeout gets BashMaxTimeout.
func TestBash_TimeoutCap(t *testing.T) {
	e := newEnv(t, LocalHost{})
	for _, tc := range []struct {
		name  string
		extra string
		want  int64
	}{
		{"default", "", BashDefaultTimeout.Milliseconds()},
		{"under the cap", `,"timeoutMs":599999`, 599999},
		{"exactly at the cap", `,"timeoutMs":600000`, BashMaxTimeout.Milliseconds()},
		{"one past the cap", `,"timeoutMs":600001`, BashMaxTimeout.Milliseconds()},
		{"an hour", `,"timeoutMs":3600000`, BashMaxTimeout.Milliseconds()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("bash", bashArgsJSON("true", tc.extra))
			wantOK(t, r)
			v, _ := r.Value.Get("timeoutMs")
			if got, _ := v.Int(); got != tc.want {
				t.Errorf("ran with timeoutMs %d, want %d", got, tc.want)
			}
		})
	}
}
