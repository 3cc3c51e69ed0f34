package ask

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// ToolName is the tool's model-facing name.
const ToolName = "ask_user"

// MaxChoices caps the choices of one question.
const MaxChoices = 10

// MaxQuestion and MaxChoice are the longest question and choice, in
// characters, that ask_user puts to a person: a dialog, not a document.
const (
	MaxQuestion = 2000
	MaxChoice   = 200
)

// Args are ask_user's arguments.
type Args struct {
	Question string   `json:"question" desc:"The question, complete and self-contained, as the user will read it."`
	Choices  []string `json:"choices,omitempty" desc:"Optional answers to choose from (at most 10), each short; without them the user answers in their own words."`
}

// Outcomes of a question.
const (
	Answered    = "answered"
	Declined    = "declined"
	Cancelled   = "cancelled"
	Unavailable = "unavailable"
)

// Reply is how a question ended: Outcome, and Answer when answered. Why
// says, for Unavailable, what prevented the question.
type Reply struct {
	Outcome string `json:"outcome"`
	Answer  string `json:"answer,omitempty"`
	Why     string `json:"why,omitempty"`
}

// Asker puts a question to the person for the call callID and waits for
// the reply, as long as ctx lasts (the turn's: a cancelled turn ends the
// wait). It must not be called from a connection's read loop.
type Asker interface {
	Ask(ctx context.Context, callID string, a Args) (Reply, error)
}

// Way is how a question reaches the person.
type Way int

// Ways to ask.
const (
	ByElicitation Way = iota // elicitation/create, form mode
	ByPermission             // session/request_permission, a choice per option
	Impossible               // the client can take no such question
)

// Route decides how a question reaches a client: by elicitation when the
// client advertised form elicitation, else by a permission request when
// there are choices to offer as its options; a free-text question to a
// client without elicitation cannot be asked.
func Route(formElicitation bool, a Args) Way {
	switch {
	case formElicitation:
		return ByElicitation
	case len(a.Choices) > 0:
		return ByPermission
	}
	return Impossible
}

// NoFreeText is what the model reads when a free-text question cannot be
// put: the client has no elicitation.
const NoFreeText = "this editor cannot take a free-text answer (it does not support elicitation): ask again with choices, or put the question in your reply and end your turn"

// Text is the result the model reads for a reply.
func Text(a Args, r Reply) string {
	switch r.Outcome {
	case Answered:
		return "The user answered: " + r.Answer
	case Declined:
		return "The user declined to answer. Do not ask the same question again; go on with what you know, or say what you need in your reply."
	case Cancelled:
		return "The question was cancelled before the user answered. Do not assume an answer."
	}
	why := r.Why
	if why == "" {
		why = "the editor could not ask it"
	}
	return "The question could not be asked: " + why + "."
}

func check(a Args) error {
	if strings.TrimSpace(a.Question) == "" {
		return fmt.Errorf("question is empty")
	}
	if n := utf8.RuneCountInString(a.Question); n > MaxQuestion {
		return fmt.Errorf("the question has %d characters; at most %d: ask it shorter, and put the details in your reply", n, MaxQuestion)
	}
	if len(a.Choices) > MaxChoices {
		return fmt.Errorf("at most %d choices, got %d", MaxChoices, len(a.Choices))
	}
	seen := map[string]bool{}
	for i, c := range a.Choices {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("choices[%d] is empty", i)
		}
		if n := utf8.RuneCountInString(c); n > MaxChoice {
			return fmt.Errorf("choices[%d] has %d characters; at most %d", i, n, MaxChoice)
		}
		if seen[c] {
			return fmt.Errorf("choices[%d] %q is given twice", i, c)
		}
		seen[c] = true
	}
	return nil
}

// Tool returns a new ask_user definition whose calls go to asker.
func Tool(asker Asker) (*registry.Tool, error) {
	t, err := registry.Define(registry.TypedTool[Args, Reply]{
		Name: ToolName,
		Description: "Ask the user a question and wait for the answer: when a decision is theirs (a choice between designs, " +
			"a missing requirement) and you cannot find the answer in the workspace. Offer choices when the answers are few. " +
			"Do not ask what you can find out yourself.",
		Execute: func(ctx context.Context, a Args, run registry.RunContext) (Reply, error) {
			if err := check(a); err != nil {
				return Reply{}, err
			}
			r, err := asker.Ask(ctx, run.Execution().CallID, a)
			if err != nil {
				return Reply{}, err
			}
			return r, nil
		},
		Render: func(a Args, r Reply) ([]card.Content, error) {
			return []card.Content{card.Text(Text(a, r))}, nil
		},
		PresentationMeta: func(_ Args, r Reply, _ jsonv.Value) (jsonv.Value, error) {
			return jsonv.FromGo(map[string]string{"outcome": r.Outcome, "answer": r.Answer})
		},
		PresentCall: func(a Args) card.CallView {
			return &card.Question{Title: "Question", Question: a.Question, Choices: a.Choices}
		},
		PresentResult: func(a Args, r registry.ToolResult) card.ResultView {
			if r.IsError {
				return nil
			}
			out := &card.Answer{Title: "Question", Question: a.Question, Outcome: Unavailable}
			if o, ok := r.Meta.Get("outcome"); ok {
				out.Outcome = o.Str()
			}
			if ans, ok := r.Meta.Get("answer"); ok {
				out.Answer = ans.Str()
			}
			return out
		},
	})
	if err != nil {
		return nil, err
	}
	t.Effect = registry.EffectRead // asks the person, changes nothing: runs in every mode
	return t, nil
}

// Form is the requestedSchema of a question's form elicitation: one
// required string, "answer", limited to the choices when there are some
// (schema $defs/ElicitationSchema, StringPropertySchema).
func Form(a Args) map[string]any {
	answer := map[string]any{"type": "string", "title": "Answer"}
	if len(a.Choices) > 0 {
		answer["enum"] = a.Choices
	}
	return map[string]any{"type": "object", "properties": map[string]any{"answer": answer}, "required": []string{"answer"}}
}

// Elicited is the client's answer to elicitation/create
// ($defs/CreateElicitationResponse).
type Elicited struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

// FromElicitation is the reply an elicitation's answer gives: accept with
// a string answer (one of the choices, when there are some) is answered;
// decline and cancel are themselves; anything else could not be read.
func FromElicitation(a Args, e Elicited) Reply {
	switch e.Action {
	case "accept":
		ans, ok := e.Content["answer"].(string)
		switch {
		case !ok || strings.TrimSpace(ans) == "":
			return Reply{Outcome: Unavailable, Why: "the editor accepted the form without an answer"}
		case len(a.Choices) > 0 && !contains(a.Choices, ans):
			return Reply{Outcome: Unavailable, Why: fmt.Sprintf("the editor answered %q, which is not one of the choices", ans)}
		}
		return Reply{Outcome: Answered, Answer: ans}
	case "decline":
		return Reply{Outcome: Declined}
	case "cancel":
		return Reply{Outcome: Cancelled}
	}
	return Reply{Outcome: Unavailable, Why: fmt.Sprintf("the editor answered with an unknown action %q", e.Action)}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Option is one option of the permission request a question becomes
// ($defs/PermissionOption).
type Option struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// declineOption is the permission request's way to not answer.
const declineOption = "decline"

// Options are the options of the permission request a question with
// choices becomes: one per choice, in order, then one to decline.
func Options(a Args) []Option {
	out := make([]Option, 0, len(a.Choices)+1)
	for i, c := range a.Choices {
		out = append(out, Option{OptionID: fmt.Sprintf("choice_%d", i), Name: c, Kind: "allow_once"})
	}
	return append(out, Option{OptionID: declineOption, Name: "Don't answer", Kind: "reject_once"})
}

// FromPermission is the reply a permission request's outcome gives:
// "cancelled", or the option selected.
func FromPermission(a Args, outcome, optionID string) Reply {
	if outcome == "cancelled" {
		return Reply{Outcome: Cancelled}
	}
	if optionID == declineOption {
		return Reply{Outcome: Declined}
	}
	for i, c := range a.Choices {
		if optionID == fmt.Sprintf("choice_%d", i) {
			return Reply{Outcome: Answered, Answer: c}
		}
	}
	return Reply{Outcome: Unavailable, Why: fmt.Sprintf("the editor selected an unknown option %q", optionID)}
}
