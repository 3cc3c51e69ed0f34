package subagent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Args are the task tool's arguments.
type Args struct {
	Description string `json:"description" desc:"A short title of the task (3 to 6 words), shown to the user."`
	Prompt      string `json:"prompt" desc:"The whole task: what to find or do, and what to report back. The agent sees nothing of this conversation."`
	Agent       string `json:"agent,omitempty" desc:"The kind of agent (default general)."`
}

// Value is a finished task: the child's final answer and who gave it.
type Value struct {
	Answer     string `json:"answer"`
	SessionID  string `json:"sessionId"`
	Agent      string `json:"agent"`
	StopReason string `json:"stopReason"`
}

// Deps is what a session gives its task tool.
type Deps struct {
	Registry *registry.Registry
	Pipeline *pipeline.Pipeline
	// Scope is the session's: children's scopes are its children, and a
	// call from any other scope (a child's) is refused: children do not
	// nest.
	Scope *registry.Scope
	// Agents are the agents a call may name, read at each call (custom
	// ones may change); Builtins when nil.
	Agents func() []Agent
	// Model is the model of a child of agent a.
	Model func(a Agent) Model
	// System is the system prompt of a child in scope.
	System func(scope *registry.Scope, a Agent) string
	// ResultText is what a model reads of a result (redacted, capped).
	ResultText  func(registry.Result) string
	MaxRequests int // a child's model requests (default 50)
	MaxParallel int // a child's parallel calls (pipeline default)
	Observer    Observer
}

type tasks struct{ deps Deps }

// Tool returns the task tool of a session. Its calls are parallel-safe
// (several tasks of one answer run at once) and it has no effect of its
// own: each of the child's calls goes through the session's pipeline,
// policies and guards, which see the child's scope as their own's child.
func Tool(d Deps) (*registry.Tool, error) {
	if d.MaxRequests <= 0 {
		d.MaxRequests = 50
	}
	if d.Agents == nil {
		d.Agents = Builtins
	}
	t := &tasks{deps: d}
	var list []string
	for _, a := range d.Agents() {
		list = append(list, a.Name+" ("+a.Description+")")
	}
	tool, err := registry.Define(registry.TypedTool[Args, Value]{
		Name: ToolName,
		Description: "Start a subagent on a self-contained task; it works alone, in a fresh context, and its final answer is this call's result. " +
			"Several task calls in one answer run in parallel. Use it for searches and side work whose details need not fill this conversation. " +
			"Agents: " + strings.Join(list, "; ") + ".",
		Execute: t.execute,
		Render: func(_ Args, v Value) ([]card.Content, error) {
			return []card.Content{card.Text(v.Answer)}, nil
		},
		IsConcurrencySafe: func(Args) bool { return true },
		PresentCall: func(a Args) card.CallView {
			agent := a.Agent
			if agent == "" {
				agent = General
			}
			return &card.Generic{Title: "Task (" + Title(agent) + "): " + Title(a.Description), Kind: card.KindOther, RawInput: a.Prompt}
		},
	})
	if err != nil {
		return nil, err
	}
	tool.Effect = registry.EffectTransport // the child's calls are judged, not the task
	return tool, nil
}

// ErrNested refuses a task from inside a child.
var ErrNested = errors.New("a subagent cannot start another subagent")

func (t *tasks) execute(ctx context.Context, a Args, run registry.RunContext) (Value, error) {
	outer := run.Execution()
	if outer.Scope != t.deps.Scope {
		return Value{}, ErrNested
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return Value{}, errors.New("invalid prompt: expected a non-empty string")
	}
	name := a.Agent
	if name == "" {
		name = General
	}
	agents := t.deps.Agents()
	ag, ok := Find(agents, name)
	if !ok {
		var names []string
		for _, x := range agents {
			names = append(names, x.Name)
		}
		return Value{}, fmt.Errorf("unknown agent %q (agents: %s)", name, strings.Join(names, ", "))
	}
	reg := t.deps.Registry
	scope := reg.NewScope(ag.Name+"@"+outer.CallID, t.deps.Scope)
	defer scope.Dispose() // its restriction and guard go with it
	if r, ok := ag.Restriction(reg.Inherited(scope)); ok {
		if _, err := reg.Restrict(scope, r); err != nil {
			return Value{}, err
		}
	}
	t.deps.Pipeline.AddGuard(scope, func(exec registry.Execution) string {
		if exec.Scope == scope && reg.Get(exec.Name, scope) == nil {
			return fmt.Sprintf("the %s agent cannot use %s: its tools are %s", ag.Name, exec.Name, toolList(reg, scope))
		}
		return ""
	})
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &Child{SessionID: newSessionID(), TaskCallID: outer.CallID, Title: Title(a.Description), Agent: ag, Scope: scope, cancel: cancel}
	obs := t.deps.Observer
	obs.ChildStarted(c)
	o := t.run(cctx, c, t.deps.Model(ag), t.deps.System(scope, ag), a.Prompt)
	obs.ChildEnded(c, o)
	v := Value{Answer: o.Answer, SessionID: c.SessionID, Agent: ag.Name, StopReason: o.Stop}
	switch {
	case ctx.Err() != nil:
		return Value{}, ctx.Err() // the parent's turn was cancelled: the task is aborted with it
	case o.Stop == StopCancelled:
		return Value{}, errors.New("the subagent was cancelled before it answered" + partial(o.Answer))
	case o.Err != nil:
		return Value{}, fmt.Errorf("the subagent failed: %v%s", o.Err, partial(o.Answer))
	case o.Stop == StopMaxReqs:
		return Value{}, fmt.Errorf("the subagent made %d model requests without finishing%s", t.deps.MaxRequests, partial(o.Answer))
	case o.Stop != StopEndTurn:
		return Value{}, fmt.Errorf("the subagent stopped (%s)%s", o.Stop, partial(o.Answer))
	case strings.TrimSpace(o.Answer) == "":
		v.Answer = "(the subagent finished without an answer)"
	}
	return v, nil
}

// MaxTitle is the most runes of a title made of the model's text (a
// task's description, an agent's name): past it the title is cut, with
// an ellipsis.
const MaxTitle = 120

// Title is text as one line of at most MaxTitle runes: white space
// (new lines too) collapsed, cut on a rune's boundary with "…".
func Title(text string) string {
	if n := 4*MaxTitle + 4; len(text) > n { // enough for MaxTitle runes of any size: Fields never sees a megabyte
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n] + " …" // cut: the ellipsis stays if the rest is short
	}
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > MaxTitle {
		text = strings.TrimRight(string(r[:MaxTitle-1]), " ") + "…"
	}
	return text
}

func partial(text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return "; its last words:\n" + text
}

func toolList(reg *registry.Registry, scope *registry.Scope) string {
	var names []string
	for _, s := range reg.Schemas(scope) {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
