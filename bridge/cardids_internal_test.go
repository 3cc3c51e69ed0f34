package bridge

import (
	"testing"

	"github.com/dsh-bridge/dsh-bridge/store"
)

// A card id the session made (reserved as announced, or named in a
// logged sub-call) is never a model call's, in whichever order they
// come; other ids keep theirs while new.
func TestCardIDsClaim(t *testing.T) {
	type step struct{ reserve, claim, want string }
	for _, tc := range []struct {
		name  string
		log   []store.Event
		steps []step
	}{
		{"new id kept", nil, []step{{claim: "call_0", want: "call_0"}, {claim: "call_1", want: "call_1"}}},
		{"reused id", nil, []step{{claim: "call_0", want: "call_0"}, {claim: "call_0", want: "call_0~2"}, {claim: "call_0", want: "call_0~3"}}},
		{"reserved id", nil, []step{{reserve: "x"}, {claim: "x", want: "x~2"}}},
		{"child's id before", nil, []step{{claim: "T", want: "T"}, {reserve: "T:task:1"}, {claim: "T:task:1", want: "T:task:1~2"}}},
		{"child's id after", nil, []step{{claim: "T:task:1", want: "T:task:1~2"}, {claim: "T", want: "T"}, {reserve: "T:task:1"}, {claim: "T:task:1", want: "T:task:1~3"}}},
		{"sub-call's id", nil, []step{{claim: "R", want: "R"}, {reserve: "R:code:1"}, {claim: "R:code:1", want: "R:code:1~2"}}},
		{"nested sub-call's id", nil, []step{{claim: "T:task:2:code:1", want: "T:task:2:code:1~2"}}},
		{"not of the session's shape", nil, []step{{claim: "a:task:", want: "a:task:"}, {claim: ":code:1", want: ":code:1"}, {claim: "a:code:1x", want: "a:code:1x"}, {claim: "a:task:1~2", want: "a:task:1~2"}}},
		{"logged sub-calls", []store.Event{
			{Kind: store.KindAssistant, ToolCalls: []store.ToolCall{{ID: "T", Name: "task"}, {ID: "call_0", CardID: "call_0~2", Name: "read"}}},
			{Kind: store.KindCodeDispatch, CallID: "x", ParentCallID: "T"},
		}, []step{{claim: "T", want: "T~2"}, {claim: "call_0~2", want: "call_0~2~2"}, {claim: "x", want: "x~2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids cardIDs
			ids.seen(tc.log)
			for _, s := range tc.steps {
				if s.reserve != "" {
					ids.reserve(s.reserve)
					continue
				}
				if got := ids.claim(s.claim); got != s.want {
					t.Errorf("claim(%q) = %q, want %q", s.claim, got, s.want)
				}
			}
		})
	}
}
