package permission

import (
	"context"
	"testing"
)

// TestPolicy_WrapperOptions: a wrapper's options that take a value, long
// ones abbreviated too, never hide the command it runs from a deny rule,
// nor make an allow rule cover a command it does not (issue 47 F8).
func TestPolicy_WrapperOptions(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		mode Mode
		want Verdict
	}{
		{"xargs --max-chars 100 rm", ModeBypass, Deny},
		{"xargs --max-c 100 rm", ModeBypass, Deny},
		{"xargs --process-slot-var S rm", ModeBypass, Deny},
		{"xargs --process 9 rm", ModeBypass, Deny},
		{"xargs -s 100 rm", ModeBypass, Deny},
		{"xargs -0s100 rm", ModeBypass, Deny},
		{"xargs --unknown-option x rm", ModeBypass, Deny},
		{"stdbuf --output L rm v", ModeBypass, Deny},
		{"stdbuf --error 0 rm v", ModeBypass, Deny},
		{"stdbuf --err 0 rm v", ModeBypass, Deny},
		{"ionice --class 2 rm v", ModeBypass, Deny},
		{"ionice --classdata 4 rm v", ModeBypass, Deny},
		{"ionice -c2 -n 4 rm v", ModeBypass, Deny},
		{"/usr/bin/time -f %e rm v", ModeBypass, Deny},
		{"/usr/bin/time --format %e rm v", ModeBypass, Deny},
		{"/usr/bin/time -o /dev/null rm v", ModeBypass, Deny},
		{"/usr/bin/time -ao /dev/null rm v", ModeBypass, Deny},
		{"timeout --signal KILL 5 rm v", ModeBypass, Deny},
		{"timeout --sig KILL 5 rm v", ModeBypass, Deny},
		{"timeout -Z x 5 rm v", ModeBypass, Deny},
		{"nice --adj 5 rm v", ModeBypass, Deny},
		{"chrt -T 5 1 rm v", ModeBypass, Deny},
		{"sudo --chdir /tmp rm v", ModeBypass, Deny},
		{"echo w | xargs --process-slot-var ls touch", ModeDefault, Ask},
		{"/usr/bin/time -f ls touch w", ModeDefault, Ask},
		{"/usr/bin/time --format ls touch w", ModeDefault, Ask},
		{"stdbuf --output ls touch w", ModeDefault, Ask},
		{"timeout -Z ls touch w", ModeDefault, Ask},
		// What the options' tables read plainly.
		{"echo w | xargs -0 -n 1 ls", ModeDefault, Allow},
		{"stdbuf -oL ls", ModeDefault, Allow},
		{"/usr/bin/time -f %e ls", ModeDefault, Allow},
		{"timeout --preserve-status 5 ls", ModeDefault, Allow},
	} {
		t.Run(string(tc.mode)+"/"+tc.cmd, func(t *testing.T) {
			p, reg, scope, _ := testPolicy(t, tc.mode, []string{"bash(ls:*)", "bash(echo:*)"}, nil, []string{"bash(rm:*)"})
			if d := p.Decide(context.Background(), reg.Get("bash", scope), bashArgs(tc.cmd)); d.Verdict != tc.want {
				t.Errorf("got %v (%s), want %v", d.Verdict, d.Reason, tc.want)
			}
		})
	}
}
