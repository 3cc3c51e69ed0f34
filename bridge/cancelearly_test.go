package bridge_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestCancel_BeforeTheTurnStarts sends session/prompt and session/cancel
// in one write, so the read loop serves the cancel before the prompt's
// handler has started its turn: the cancel must still end that prompt
// as cancelled, never be lost (the model would then be asked and the turn
// would run to its end).
func TestCancel_BeforeTheTurnStarts(t *testing.T) {
	h := setup(t, nil)
	h.model.respond = func(chatRequest) fakeTurn { return fakeTurn{text: "slow", hang: true} }
	for i := range 10 {
		t.Run(fmt.Sprint("round ", i), func(t *testing.T) {
			h.mu.Lock()
			h.nextID++
			id := h.nextID
			ch := make(chan message, 1)
			h.waiting[fmt.Sprint(id)] = ch
			h.methods[fmt.Sprint(id)] = "session/prompt"
			h.mu.Unlock()
			prompt, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt",
				"params": map[string]any{"sessionId": h.session, "prompt": []any{map[string]any{"type": "text", "text": "x"}}}})
			cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/cancel",
				"params": map[string]any{"sessionId": h.session}})
			h.sendRaw(string(prompt) + "\n" + string(cancel))
			m := within(t, ch)
			if m.Error != nil || !strings.Contains(string(m.Result), `"cancelled"`) {
				t.Errorf("a prompt cancelled on arrival answered %s %+v", m.Result, m.Error)
			}
		})
	}
	// A cancel that arrives when no prompt is pending reaches no later
	// prompt.
	h.notify("session/cancel", map[string]any{"sessionId": h.session})
	h.model.respond = func(chatRequest) fakeTurn { return fakeTurn{text: "done"} }
	if stop := h.prompt(h.session, "after"); stop != "end_turn" {
		t.Errorf("a prompt after a stray cancel ended %q", stop)
	}
}
