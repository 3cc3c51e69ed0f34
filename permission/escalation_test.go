package permission

import (
	"context"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// TestPolicy_Escalation: a command that asks to run outside the sandbox
// (unsandboxed: true) is asked about in every mode that runs commands,
// bypassPermissions included, whatever allow rule or "always" answer
// covers the command; only a refusal (a deny rule, plan mode) is decided
// without asking. The same command in the sandbox is the control: there
// bypassPermissions and the allow rules let it run.
func TestPolicy_Escalation(t *testing.T) {
	const cmd = "echo hi"
	for _, tc := range []struct {
		name              string
		allow, ask, deny  []string
		remember          bool   // an "always allow" answer for the command
		want, wantSandbox string // verdicts by decisionModes
	}{
		{name: "no rule", want: "ask ask deny ask", wantSandbox: "ask ask deny allow"},
		{name: "the program allowed", allow: []string{"bash(echo:*)"}, want: "ask ask deny ask", wantSandbox: "allow allow deny allow"},
		{name: "every command allowed", allow: []string{"bash"}, want: "ask ask deny ask", wantSandbox: "allow allow deny allow"},
		{name: "an always-allow answer", remember: true, want: "ask ask deny ask", wantSandbox: "allow allow deny allow"},
		{name: "an ask rule", ask: []string{"bash(echo:*)"}, want: "ask ask deny ask", wantSandbox: "ask ask deny allow"},
		{name: "a deny rule", deny: []string{"bash(echo:*)"}, want: "deny deny deny deny", wantSandbox: "deny deny deny deny"},
	} {
		for i, mode := range decisionModes {
			t.Run(tc.name+"/"+string(mode), func(t *testing.T) {
				verdicts := map[string]Verdict{"allow": Allow, "ask": Ask, "deny": Deny}
				for _, c := range []struct {
					unsandboxed bool
					want        string
				}{{true, tc.want}, {false, tc.wantSandbox}} {
					dir := tableWorkspace(t)
					p, reg, scope := policyIn(t, dir, mode, tc.allow, tc.ask, tc.deny)
					tool := reg.Get("bash", scope)
					args, err := jsonv.FromGo(map[string]any{"command": cmd, "description": "d", "unsandboxed": c.unsandboxed})
					if err != nil {
						t.Fatal(err)
					}
					if tc.remember {
						p.Remember([]string{"bash:echo"}, true)
					}
					want := verdicts[strings.Fields(c.want)[i]]
					d := p.Decide(context.Background(), tool, args)
					if d.Verdict != want {
						t.Errorf("unsandboxed %v: got %v (%s), want %v", c.unsandboxed, d.Verdict, d.Reason, want)
					}
					if c.unsandboxed && want == Ask && !strings.Contains(d.Reason, "outside the sandbox") {
						t.Errorf("asked because %q, want the escalation named", d.Reason)
					}
				}
			})
		}
	}
}
