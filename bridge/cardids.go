package bridge

import (
	"strconv"
	"strings"
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
// "<id>~<n>", n from 2. The ids the session makes itself — a child's
// calls' <task>:task:<n>, a Code Mode sub-call's <run_code>:code:<n> —
// are reserved as they are announced, and a model id of their shape
// never keeps its id (it gets "<id>~<n>" too), so that a model naming a
// call after a card of the session's making, before or after that card
// exists, takes neither's place. The model's history keeps the model's
// ids as sent; the log keeps both (store.ToolCall.CardID, and the
// reserved ids in its events), so a load shows the same cards.
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
	card, n := id, 2
	if sessionMade(id) {
		card, n = id+"~2", 3
	}
	for ; c.used[card]; n++ {
		card = id + "~" + strconv.Itoa(n)
	}
	c.used[card] = true
	return card
}

// reserve marks a card id the session made (a child's call, a Code Mode
// sub-call) as taken.
func (c *cardIDs) reserve(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used == nil {
		c.used = map[string]bool{}
	}
	c.used[id] = true
}

// sessionMade reports whether id has the shape of a card id the session
// makes: "<card>:task:<n>" or "<card>:code:<n>", n decimal digits.
func sessionMade(id string) bool {
	for _, infix := range []string{":task:", ":code:"} {
		i := strings.LastIndex(id, infix)
		if i <= 0 {
			continue
		}
		n := id[i+len(infix):]
		if n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// seen marks the card ids of a logged conversation as taken: its calls'
// and its sub-calls' (a child's calls, Code Mode's).
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
		if e.Kind == store.KindCodeDispatch && e.CallID != "" {
			c.used[e.CallID] = true
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
