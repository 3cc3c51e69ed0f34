package ask

import (
	"context"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func TestRoute(t *testing.T) {
	choices := Args{Question: "q", Choices: []string{"a", "b"}}
	free := Args{Question: "q"}
	for _, tc := range []struct {
		name string
		form bool
		a    Args
		want Way
	}{
		{"elicitation with choices", true, choices, ByElicitation},
		{"elicitation, free", true, free, ByElicitation},
		{"no elicitation, choices", false, choices, ByPermission},
		{"no elicitation, free", false, free, Impossible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Route(tc.form, tc.a); got != tc.want {
				t.Errorf("Route = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFromPermission(t *testing.T) {
	a := Args{Question: "q", Choices: []string{"Postgres", "SQLite", "none"}}
	opts := Options(a)
	if len(opts) != 4 || opts[3].OptionID != "decline" || opts[3].Kind != "reject_once" {
		t.Fatalf("options %+v", opts)
	}
	for i, c := range a.Choices {
		t.Run(c, func(t *testing.T) {
			if r := FromPermission(a, "selected", opts[i].OptionID); r.Outcome != Answered || r.Answer != c || opts[i].Name != c {
				t.Errorf("option %+v gives %+v", opts[i], r)
			}
		})
	}
	for _, tc := range []struct{ name, outcome, id, want string }{
		{"decline", "selected", "decline", Declined},
		{"cancelled", "cancelled", "", Cancelled},
		{"cancelled with an id", "cancelled", "choice_0", Cancelled},
		{"past the choices", "selected", "choice_3", Unavailable},
		{"a permission id", "selected", "allow_once", Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := FromPermission(a, tc.outcome, tc.id); r.Outcome != tc.want {
				t.Errorf("got %+v, want %s", r, tc.want)
			}
		})
	}
}

func TestFromElicitation(t *testing.T) {
	choices := Args{Question: "q", Choices: []string{"a", "b"}}
	for _, tc := range []struct {
		name string
		a    Args
		e    Elicited
		want Reply
	}{
		{"accept a choice", choices, Elicited{"accept", map[string]any{"answer": "b"}}, Reply{Outcome: Answered, Answer: "b"}},
		{"accept free text", Args{Question: "q"}, Elicited{"accept", map[string]any{"answer": "anything"}}, Reply{Outcome: Answered, Answer: "anything"}},
		{"accept outside the choices", choices, Elicited{"accept", map[string]any{"answer": "c"}}, Reply{Outcome: Unavailable}},
		{"accept without content", choices, Elicited{Action: "accept"}, Reply{Outcome: Unavailable}},
		{"accept a number", choices, Elicited{"accept", map[string]any{"answer": 3.0}}, Reply{Outcome: Unavailable}},
		{"decline", choices, Elicited{Action: "decline"}, Reply{Outcome: Declined}},
		{"cancel", choices, Elicited{Action: "cancel"}, Reply{Outcome: Cancelled}},
		{"an unknown action", choices, Elicited{Action: "_later"}, Reply{Outcome: Unavailable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FromElicitation(tc.a, tc.e)
			if got.Outcome != tc.want.Outcome || got.Answer != tc.want.Answer || (got.Outcome == Unavailable) != (got.Why != "") {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

type fakeAsker struct {
	got   Args
	reply Reply
}

func (f *fakeAsker) Ask(_ context.Context, _ string, a Args) (Reply, error) {
	f.got = a
	return f.reply, nil
}

type runContext struct{}

func (runContext) Execution() registry.Execution        { return registry.Execution{CallID: "c1"} }
func (runContext) DeferContext(registry.ContextMessage) {}
func (runContext) ConcludeTurn()                        {}

// TestTool pins the arguments the tool checks before anyone is asked.
func TestTool(t *testing.T) {
	for _, tc := range []struct {
		name, args, wantErr string
	}{
		{"empty question", `{"question":"  "}`, "question is empty"},
		{"an empty choice", `{"question":"q","choices":["a",""]}`, "choices[1] is empty"},
		{"a choice twice", `{"question":"q","choices":["a","a"]}`, "given twice"},
		{"too many choices", `{"question":"q","choices":["1","2","3","4","5","6","7","8","9","10","11"]}`, "at most 10"},
		{"fine", `{"question":"q","choices":["a","b"]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAsker{reply: Reply{Outcome: Answered, Answer: "a"}}
			tool, err := Tool(f)
			if err != nil {
				t.Fatal(err)
			}
			if tool.Effect != registry.EffectRead {
				t.Errorf("effect %v: plan mode would refuse it", tool.Effect)
			}
			v, err := jsonv.Parse([]byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			_, err = tool.Execute(context.Background(), v, runContext{})
			switch {
			case tc.wantErr == "" && (err != nil || f.got.Question != "q"):
				t.Errorf("err %v, asked %+v", err, f.got)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || f.got.Question != ""):
				t.Errorf("err %v, asked %+v; want %q and no question", err, f.got, tc.wantErr)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		args Args
		ok   bool
	}{
		{"a question", Args{Question: "Which one?"}, true},
		{"choices", Args{Question: "Which one?", Choices: []string{"a", "b"}}, true},
		{"the longest question", Args{Question: strings.Repeat("é", MaxQuestion)}, true},
		{"a question one too long", Args{Question: strings.Repeat("é", MaxQuestion+1)}, false},
		{"a choice one too long", Args{Question: "q", Choices: []string{strings.Repeat("x", MaxChoice+1)}}, false},
		{"empty", Args{Question: "  "}, false},
		{"too many choices", Args{Question: "q", Choices: strings.Split("a b c d e f g h i j k", " ")}, false},
		{"an empty choice", Args{Question: "q", Choices: []string{"a", " "}}, false},
		{"a choice twice", Args{Question: "q", Choices: []string{"a", "a"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := check(tc.args); (err == nil) != tc.ok {
				t.Errorf("check = %v, want ok %v", err, tc.ok)
			}
		})
	}
}
