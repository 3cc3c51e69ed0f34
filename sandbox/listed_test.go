package sandbox

import (
	"slices"
	"testing"
)

// A notice names the person's denied paths, not dsh-bridge's own stored
// key, which every session denies.
func TestListedDeny(t *testing.T) {
	for _, tc := range []struct {
		name       string
		deny, want []string
	}{
		{"none", nil, nil},
		{"the person's rules", []string{"/w/secrets", "/home/me/.ssh"}, []string{"/w/secrets", "/home/me/.ssh"}},
		{"the stored key left out", []string{"/w/secrets", "/home/me/.config/dsh-bridge/credentials.json"}, []string{"/w/secrets"}},
		{"a credentials.json of another program kept", []string{"/w/app/credentials.json"}, []string{"/w/app/credentials.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listedDeny(tc.deny); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
