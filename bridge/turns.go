package bridge

import (
	"github.com/dsh-bridge/dsh-bridge/checkpoint"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// replayTurn is one complete turn of a loaded log, and its file changes
// (logged under its user message id, possibly after its end).
type replayTurn struct {
	events  []store.Event
	at      []int // at[i] is the index of events[i] in the log
	changes []checkpoint.Change
}

// completeTurns groups a log's events into finished turns; events after
// the last turn end (a turn cut off by a crash) are dropped, so the
// restored history is always well formed.
func completeTurns(events []store.Event) (turns []replayTurn, st restored, cutOff bool) {
	var cur []store.Event
	var at []int
	st.config = map[string]string{}
	checkpoints := map[string][]checkpoint.Change{} // by the turn's user message id
	for i, e := range events {
		switch e.Kind {
		case store.KindAbandoned:
			cur, at = nil, nil
		case store.KindMode:
			st.mode = e.Mode
		case store.KindTitle:
			st.title = e.Title
		case store.KindConfig:
			st.config[e.ConfigID] = e.Value
		case store.KindUsage:
			if e.Usage != nil && e.Usage.CostUSD != nil {
				st.cost += *e.Usage.CostUSD
				st.priced = true
			}
			if e.Usage != nil && e.Usage.Bytes > 0 {
				st.lastPrompt, st.lastBytes = e.Usage.PromptTokens, e.Usage.Bytes
			}
		case store.KindTurnEnd:
			turns = append(turns, replayTurn{events: cur, at: at})
			cur, at = nil, nil
		case store.KindCheckpoint:
			checkpoints[e.MessageID] = append(checkpoints[e.MessageID], e.Checkpoint...)
		case store.KindRewind:
			if i := turnOf(turns, e.MessageID); i >= 0 {
				turns = turns[:i]
			}
		case store.KindUser, store.KindAssistant, store.KindToolResult, store.KindContext, store.KindCompaction, store.KindCodeDispatch, store.KindClear, store.KindSubagent:
			cur = append(cur, e)
			at = append(at, i)
		}
	}
	for i := range turns {
		if id, _ := turns[i].userMessage(); id != "" {
			turns[i].changes = checkpoints[id]
		}
	}
	return turns, st, len(cur) > 0
}

// turnOf is the index of the turn holding the message id (its user
// message or one of its assistant messages), -1 when none does.
func turnOf(turns []replayTurn, id string) int {
	if id == "" {
		return -1
	}
	for i, t := range turns {
		for _, e := range t.events {
			if e.MessageID == id {
				return i
			}
		}
	}
	return -1
}

// userMessage is a turn's user message: its id and text ("" for a
// turn a slash command ran, which has none).
func (t replayTurn) userMessage() (id, text string) {
	for _, e := range t.events {
		if e.Kind == store.KindUser {
			return e.MessageID, e.Text
		}
	}
	return "", ""
}

// restored is the session state a log records besides its turns.
type restored struct {
	mode, title string
	config      map[string]string // config option id → value, last wins
	cost        float64           // the cost of the priced requests
	priced      bool
	// lastPrompt and lastBytes are the last conversation request's
	// prompt tokens and estimated size.
	lastPrompt int64
	lastBytes  int
}
