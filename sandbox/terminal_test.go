package sandbox

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestTerminalEnv(t *testing.T) {
	env := []string{"PATH=/bin", "DSH_API_KEY=sk-1", "GOCACHE=/home/me/.cache/go-build", "TOKEN=t", "HOME=/home/me"}
	for _, tc := range []struct {
		name string
		spec TerminalSpec
		want []string
	}{
		{"nothing to change", TerminalSpec{}, env},
		{"unset", TerminalSpec{Unset: []string{"DSH_API_KEY", "TOKEN", "ABSENT"}}, []string{"PATH=/bin", "GOCACHE=/home/me/.cache/go-build", "HOME=/home/me"}},
		{"set replaces", TerminalSpec{Set: []string{"GOCACHE=/tmp/c"}}, []string{"PATH=/bin", "DSH_API_KEY=sk-1", "TOKEN=t", "HOME=/home/me", "GOCACHE=/tmp/c"}},
		{"a name that only starts the same stays", TerminalSpec{Unset: []string{"TOK", "PATH_"}}, env},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TerminalEnv(env, tc.spec); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestInTerminal(t *testing.T) {
	p := &Profile{Write: []string{"/ws"}, Deny: []string{"/ws/secrets"}}
	cmd, args, err := InTerminal("/opt/dsh-bridge", TerminalSpec{Profile: p, Unset: []string{"DSH_API_KEY"}}, []string{"/bin/bash", "-c", "echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	if cmd != "/opt/dsh-bridge" || len(args) != 6 || args[0] != TerminalArg || args[2] != "--" || !slices.Equal(args[3:], []string{"/bin/bash", "-c", "echo hi"}) {
		t.Fatalf("got %s %q", cmd, args)
	}
	var back TerminalSpec
	if err := json.Unmarshal([]byte(args[1]), &back); err != nil || back.Profile == nil || !slices.Equal(back.Profile.Deny, p.Deny) || !slices.Equal(back.Unset, []string{"DSH_API_KEY"}) {
		t.Errorf("the spec does not round-trip: %s (%v)", args[1], err)
	}
	if _, _, err := InTerminal("/opt/dsh-bridge", TerminalSpec{}, nil); err == nil {
		t.Error("no command: got no error")
	}
}
