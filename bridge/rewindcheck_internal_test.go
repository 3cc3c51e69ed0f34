package bridge

import (
	"path/filepath"
	"testing"
)

func TestPickMessageID(t *testing.T) {
	tests := []struct {
		name   string
		client string
		used   map[string]bool
		keep   bool // the client's id is kept
	}{
		{"a new valid id is kept", "m1", map[string]bool{"m0": true}, true},
		{"an id the session had gets a new one", "m1", map[string]bool{"m1": true}, false},
		{"an invalid id gets a new one", "not a name!", nil, false},
		{"no id gets a new one", "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pickMessageID(tt.client, tt.used)
			if (got == tt.client) != tt.keep || tt.used[got] || got == "" {
				t.Errorf("pickMessageID(%q) = %q", tt.client, got)
			}
		})
	}
}

func TestRestoreCheck(t *testing.T) {
	root := filepath.FromSlash("/ws")
	state := filepath.FromSlash("/ws/.state")
	out := filepath.FromSlash("/elsewhere/o.txt")
	tests := []struct {
		name           string
		recorded, real string
		inside         bool
		ok             bool
	}{
		{"in the workspace", filepath.Join(root, "a"), filepath.Join(root, "a"), true, true},
		{"in the state folder", filepath.Join(state, "sess.jsonl"), filepath.Join(state, "sess.jsonl"), true, false},
		{"outside, as the approved write was", out, out, false, true},
		{"outside, through a link put since", out, filepath.FromSlash("/etc/o.txt"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := restoreCheck(tt.recorded, tt.real, tt.inside, state); (err == nil) != tt.ok {
				t.Errorf("restoreCheck = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
