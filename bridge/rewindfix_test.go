package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRewind_RefusedWhileATurnRuns: a rewind during a turn is refused
// with words about the turn, not about a prompt.
func TestRewind_RefusedWhileATurnRuns(t *testing.T) {
	h := setup(t, nil, fakeTurn{text: "slow", hang: true})
	ch := h.start("session/prompt", map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}})
	h.waitFor(func() bool { return strings.Contains(h.agentText(), "slow") }) // the turn runs
	_, rerr := h.call(rewindMethod, map[string]any{"sessionId": h.session, "toMessageId": "msg_any"})
	if rerr == nil || rerr.Code != -32600 || !strings.Contains(rerr.Message, "a turn is running in this session; rewind after it ends") {
		t.Errorf("rewind during a turn: %+v", rerr)
	}
	h.notify("session/cancel", map[string]any{"sessionId": h.session})
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end on session/cancel")
	}
}

// TestRewind_RepeatedMessageIDGetsANewOne: a prompt whose messageId the
// session has had runs under a new id, named in its answer.
func TestRewind_RepeatedMessageIDGetsANewOne(t *testing.T) {
	h := setup(t, nil, fakeTurn{text: "one"}, fakeTurn{text: "two"})
	idOf := func(text string) string {
		res, rerr := h.call("session/prompt", map[string]any{"sessionId": h.session, "messageId": "m1", "prompt": []any{map[string]any{"type": "text", "text": text}}})
		if rerr != nil {
			t.Fatal(rerr)
		}
		var pr struct {
			Meta struct {
				Dsh struct {
					UserMessageID string `json:"userMessageId"`
				} `json:"dsh"`
			} `json:"_meta"`
		}
		json.Unmarshal(res, &pr)
		return pr.Meta.Dsh.UserMessageID
	}
	if first := idOf("first"); first != "m1" {
		t.Errorf("the first prompt's id is %q, want the client's", first)
	}
	if second := idOf("second"); second == "m1" || !strings.HasPrefix(second, "msg_") {
		t.Errorf("the repeated id gave %q, want a new one", second)
	}
}
