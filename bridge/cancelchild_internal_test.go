package bridge

import (
	"testing"

	"github.com/dsh-bridge/dsh-bridge/subagent"
)

// TestCancelChild_OnlyAnOpenParentsChild: session/cancel with a child's
// id reaches the child only while its parent session is open on this
// server (this connection): not once the parent was closed — nor when
// another session of the same id took its place — nor for an id the
// server never ran. The children here have no cancel function: calling
// it would panic, so a refusal that does not hold fails the test.
func TestCancelChild_OnlyAnOpenParentsChild(t *testing.T) {
	parent := &Session{id: "sess_a"}
	for _, tc := range []struct {
		name     string
		sessions map[string]*Session
		id       string
	}{
		{"parent closed", map[string]*Session{}, "sub_1"},
		{"parent replaced by a session of its id", map[string]*Session{"sess_a": {id: "sess_a"}}, "sub_1"},
		{"unknown child", map[string]*Session{"sess_a": parent}, "sub_2"},
		{"a session's id is not a child's", map[string]*Session{"sess_a": parent}, "sess_a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{sessions: tc.sessions, children: map[string]runningChild{
				"sub_1": {child: &subagent.Child{SessionID: "sub_1"}, parent: parent},
			}}
			if s.cancelChild(tc.id) {
				t.Fatalf("cancelled %s", tc.id)
			}
		})
	}
}
