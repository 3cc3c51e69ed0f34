package bridge

import (
	"strconv"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// cardIDs gives each tool call of a session's model a card id — the
// editor's toolCallId — unique within the session. A model (or an
// OpenAI-compatible server) may give calls one id in one answer or in
// two (call_0 every time); a card that took an earlier card's id would
// overwrite it in the editor. A call whose model id is new in the
// session keeps it as its card id; a reused one gets the first free
// "<id>~<n>", n from 2. The model's history keeps the model's ids as
// sent; the log keeps both (store.ToolCall.CardID), so a load shows the
// same cards.
type cardIDs struct {
	mu   sync.Mutex
	used map[string]bool
}

// claim is a new card id for a call the model named id.
func (c *cardIDs) claim(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used == nil {
		c.used = map[string]bool{}
	}
	card := id
	for n := 2; c.used[card]; n++ {
		card = id + "~" + strconv.Itoa(n)
	}
	c.used[card] = true
	return card
}

// seen marks the card ids of a logged conversation as taken.
func (c *cardIDs) seen(events []store.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used == nil {
		c.used = map[string]bool{}
	}
	for _, e := range events {
		for _, tc := range e.ToolCalls {
			c.used[tc.Card()] = true
		}
	}
}

// answerCards maps one answer's calls to their card ids: the k-th call
// the model named id in this answer has the same card id whether it is
// met announced (as it streams) or in the finished response.
type answerCards struct {
	ids     *cardIDs
	byModel map[string][]string
}

func newAnswerCards(ids *cardIDs) *answerCards {
	return &answerCards{ids: ids, byModel: map[string][]string{}}
}

// announced is a call the model just finished writing, with its card id.
func (a *answerCards) announced(tc model.ToolCall) model.ToolCall {
	card := a.ids.claim(tc.ID)
	a.byModel[tc.ID] = append(a.byModel[tc.ID], card)
	tc.ID = card
	return tc
}

// cards are the calls of the response (or of its announced part) with
// their card ids, in the response's order.
func (a *answerCards) cards(tcs []model.ToolCall) []model.ToolCall {
	out := make([]model.ToolCall, len(tcs))
	k := map[string]int{}
	for i, tc := range tcs {
		n := k[tc.ID]
		k[tc.ID] = n + 1
		if n >= len(a.byModel[tc.ID]) {
			a.byModel[tc.ID] = append(a.byModel[tc.ID], a.ids.claim(tc.ID))
		}
		out[i] = tc
		out[i].ID = a.byModel[tc.ID][n]
	}
	return out
}
