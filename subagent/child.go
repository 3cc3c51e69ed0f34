package subagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Stop reasons of a child, as ACP names a turn's.
const (
	StopEndTurn   = "end_turn"
	StopMaxReqs   = "max_turn_requests"
	StopMaxTokens = "max_tokens"
	StopRefusal   = "refusal"
	StopCancelled = "cancelled"
	StopError     = "error" // the child failed (its model request did)
)

// Child is one running child session: a task call's own conversation in
// a child scope of its parent's.
type Child struct {
	SessionID  string // the child's session id, "sub_" and 24 hex digits
	TaskCallID string // the task call that started it
	Title      string // the task's description
	Agent      Agent
	Scope      *registry.Scope

	cancel context.CancelFunc
	mu     sync.Mutex
	steps  []string
	n      int
}

// Cancel cancels the child alone: its task ends as a failed result and
// the parent's turn goes on.
func (c *Child) Cancel() { c.cancel() }

// Progress is the task card's text while the child runs: the task and
// one line per call the child has made.
func (c *Child) Progress() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	b.WriteString(c.Agent.Name + " agent: " + c.Title)
	for _, s := range c.steps {
		b.WriteString("\n→ " + s)
	}
	return b.String()
}

// newCallID is the editor's id of a child's next call: <task id>:task:<n>,
// in the order the child's model wrote them, so that no two of its calls
// (whatever ids its model gave them), no two children's nor the parent's
// ids meet.
func (c *Child) newCallID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.TaskCallID + ":task:" + itoa(c.n)
}

// callIDs maps one model request's call ids to the editor's: each call
// the stream announces gets a new id, and the response's calls take
// those in order, so a model id used twice — in one answer or in two —
// is two calls, never one card shown twice.
type callIDs struct {
	c       *Child
	pending map[string][]string // model id → editor ids announced, not yet matched
}

func (m *callIDs) announce(modelID string) string {
	id := m.c.newCallID()
	m.pending[modelID] = append(m.pending[modelID], id)
	return id
}

func (m *callIDs) match(modelID string) string {
	if q := m.pending[modelID]; len(q) > 0 {
		m.pending[modelID] = q[1:]
		return q[0]
	}
	return m.c.newCallID()
}

func (c *Child) step(tc model.ToolCall) {
	args := strings.Join(strings.Fields(tc.Arguments), " ")
	if r := []rune(args); len(r) > 80 {
		args = string(r[:79]) + "…"
	}
	c.mu.Lock()
	c.steps = append(c.steps, tc.Name+" "+args)
	c.mu.Unlock()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

func newSessionID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "sub_" + hex.EncodeToString(b)
}

// Outcome is how a child ended.
type Outcome struct {
	Stop   string // one of the Stop reasons
	Answer string // the child's last text
	Err    error  // why it failed (StopError)
}

// Observer hears children's lives, for the editor and the session log.
// Calls for one child come in its order; different children's may come
// at once (parallel tasks).
type Observer interface {
	// ChildStarted comes before anything else of the child.
	ChildStarted(c *Child)
	// ChildCall is a call the child's model finished writing (its id is
	// already the editor's).
	ChildCall(c *Child, tc model.ToolCall)
	// ChildState is a call's progress (AwaitingApproval, Running).
	ChildState(c *Child, callID string, st pipeline.State)
	// ChildCallDone is a call's committed result; a call announced but
	// never run (the child was cancelled first) ends with a failed one.
	ChildCallDone(c *Child, tc model.ToolCall, r registry.Result)
	// ChildUsage is one of the child's model requests' usage.
	ChildUsage(c *Child, modelID string, u model.Usage)
	// ChildEnded comes last.
	ChildEnded(c *Child, o Outcome)
}

// Model is the model a child talks to.
type Model struct {
	Client   model.Client
	ID       string
	Thinking model.Thinking
}

// run is the child's agent loop: the parent's loop, without compaction,
// slash commands or editor chunks — the child's text reaches the parent
// as its answer, its calls the editor as nested cards.
func (t *tasks) run(ctx context.Context, c *Child, m Model, system, prompt string) Outcome {
	var hist model.History
	hist.Append(model.Message{Role: "user", Content: prompt})
	schemas := t.deps.Registry.ModelSchemas(c.Scope)
	tools := make([]model.Tool, len(schemas))
	for i, s := range schemas {
		tools[i] = model.Tool{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	obs := t.deps.Observer
	last := ""
	for n := 0; ; n++ {
		if n >= t.deps.MaxRequests {
			return Outcome{Stop: StopMaxReqs, Answer: last}
		}
		if ctx.Err() != nil {
			return Outcome{Stop: StopCancelled, Answer: last}
		}
		ids := &callIDs{c: c, pending: map[string][]string{}}
		resp, err := m.Client.Complete(ctx, model.Request{Model: m.ID, System: system, History: &hist, Tools: tools, Thinking: m.Thinking}, model.Handler{
			OnToolCall: func(tc model.ToolCall) {
				tc.ID = ids.announce(tc.ID)
				c.step(tc)
				obs.ChildCall(c, tc)
			},
		})
		obs.ChildUsage(c, m.ID, resp.Usage)
		for _, list := range [][]model.ToolCall{resp.ToolCalls, resp.Announced} {
			for i := range list {
				list[i].ID = ids.match(list[i].ID)
			}
		}
		if resp.Text != "" {
			last = resp.Text
		}
		if ctx.Err() != nil || err != nil {
			for _, tc := range append(resp.ToolCalls, resp.Announced...) {
				obs.ChildCallDone(c, tc, aborted)
			}
			if ctx.Err() != nil {
				return Outcome{Stop: StopCancelled, Answer: last}
			}
			return Outcome{Stop: StopError, Answer: last, Err: err}
		}
		if len(resp.ToolCalls) == 0 {
			switch resp.FinishReason {
			case "length":
				return Outcome{Stop: StopMaxTokens, Answer: last}
			case "content_filter":
				return Outcome{Stop: StopRefusal, Answer: last}
			}
			return Outcome{Stop: StopEndTurn, Answer: last}
		}
		calls := make([]pipeline.Call, len(resp.ToolCalls))
		for i, tc := range resp.ToolCalls {
			calls[i] = pipeline.Call{CallID: tc.ID, Name: tc.Name, Arguments: []byte(tc.Arguments), Scope: c.Scope}
		}
		results := t.deps.Pipeline.ExecuteBatch(ctx, calls, pipeline.BatchOptions{
			MaxParallel: t.deps.MaxParallel,
			OnState: func(i int, st pipeline.State, res *registry.Result) {
				switch st {
				case pipeline.AwaitingApproval, pipeline.Running:
					obs.ChildState(c, resp.ToolCalls[i].ID, st)
				case pipeline.Finished:
					obs.ChildCallDone(c, resp.ToolCalls[i], *res)
				}
			},
		})
		add := []model.Message{{Role: "assistant", Content: resp.Text, Reasoning: resp.Reasoning, ToolCalls: resp.ToolCalls}}
		var contexts []model.Message
		for i, r := range results {
			add = append(add, model.Message{Role: "tool", ToolCallID: resp.ToolCalls[i].ID, Content: t.deps.ResultText(r)})
			for _, x := range r.AdditionalContexts {
				contexts = append(contexts, model.Message{Role: "user", Content: blocksText(x.Content)})
			}
		}
		hist.Append(append(add, contexts...)...)
	}
}

// aborted is the result of a child's call that never ran.
var aborted = registry.Result{IsError: true, Content: []card.Content{card.Text("Error: tool call aborted before dispatch")},
	Error: &registry.Failure{Message: "tool call aborted before dispatch"}}

func blocksText(blocks []card.Content) string {
	var parts []string
	for _, b := range blocks {
		if b.Type() == card.TypeText {
			parts = append(parts, b.TextValue())
		}
	}
	return strings.Join(parts, "\n")
}
