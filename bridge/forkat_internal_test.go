package bridge

import (
	"errors"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// forkLog is a log (header first) of turns: each a user message, an
// answer with one call and its result, and a turn end; a child's answer
// logged with the second turn's task; then more.
func forkLog(more ...store.Event) []store.Event {
	turn := func(user, text, answer string) []store.Event {
		return []store.Event{
			{Kind: store.KindUser, MessageID: user, Text: text},
			{Kind: store.KindAssistant, MessageID: answer, ToolCalls: []store.ToolCall{{ID: "c_" + answer, Name: "task"}}},
			{Kind: store.KindSubagent, ParentCallID: "c_" + answer, SessionID: "child_" + answer, MessageID: "childmsg_" + answer, Text: "child answer"},
			{Kind: store.KindToolResult, CallID: "c_" + answer},
			{Kind: store.KindAssistant, MessageID: answer + "_end", Text: "done"},
			{Kind: store.KindTurnEnd, StopReason: stopEndTurn},
		}
	}
	events := []store.Event{{Kind: store.KindSession, Cwd: "/ws"}}
	events = append(events, turn("m1", "first", "a1")...)
	events = append(events, turn("m2", "second", "a2")...)
	return append(events, more...)
}

// The user messages a fork's log replays, and how its last turn ends.
func forkedUsers(t *testing.T, copied []store.Event) (string, string) {
	t.Helper()
	turns, _, cutOff := completeTurns(copied)
	if cutOff {
		t.Errorf("the fork's log ends in a turn cut off")
	}
	var users []string
	last := ""
	for _, tr := range turns {
		_, text := tr.userMessage()
		users = append(users, text)
		last = tr.events[len(tr.events)-1].Kind
	}
	return strings.Join(users, "|"), last
}

// A fork cuts at the message the current history holds under the id,
// never at a rewound one nor at a child's answer, and never panics.
func TestForkAtMessageCut(t *testing.T) {
	rewoundThenReused := forkLog(append([]store.Event{{Kind: store.KindRewind, MessageID: "m1"}},
		store.Event{Kind: store.KindUser, MessageID: "m1", Text: "third"},
		store.Event{Kind: store.KindAssistant, MessageID: "a3", Text: "a3"},
		store.Event{Kind: store.KindTurnEnd, StopReason: stopEndTurn})...)
	for _, tc := range []struct {
		name   string
		log    []store.Event
		id     string
		users  string // "" for an invalid-params refusal
		lastIs string
	}{
		{"user message", forkLog(), "m2", "first|second", store.KindUser},
		{"assistant message keeps its results", forkLog(), "a2", "first|second", store.KindToolResult},
		{"last answer", forkLog(), "a2_end", "first|second", store.KindAssistant},
		{"an id reused after a rewind names the live message", rewoundThenReused, "m1", "third", store.KindUser},
		{"a rewound message", rewoundThenReused, "m2", "", ""},
		{"a rewound answer", rewoundThenReused, "a1", "", ""},
		{"a child's answer", forkLog(), "childmsg_a1", "", ""},
		{"a call id", forkLog(), "c_a1", "", ""},
		{"unknown", forkLog(), "nope", "", ""},
		{"empty", forkLog(), "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			copied, err := forkAtMessage(tc.log, tc.id)
			if tc.users == "" {
				if !errors.Is(err, acp.ErrInvalidParams) {
					t.Errorf("forkAtMessage(%q) = %d events, %v; want invalid params", tc.id, len(copied), err)
				}
				return
			}
			if err != nil {
				t.Fatalf("forkAtMessage(%q): %v", tc.id, err)
			}
			all := append([]store.Event{tc.log[0]}, copied...)
			if users, last := forkedUsers(t, all); users != tc.users || last != tc.lastIs {
				t.Errorf("forkAtMessage(%q) holds the user messages %q ending in %s, want %q ending in %s", tc.id, users, last, tc.users, tc.lastIs)
			}
		})
	}
}
