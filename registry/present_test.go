package registry

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

func presenterWith(t *testing.T, call func(jsonv.Value) card.CallView, result func(jsonv.Value, ToolResult) card.ResultView) (Presenter, *Scope) {
	t.Helper()
	reg := New()
	tool := &Tool{
		Name:       "t",
		Parameters: jsonv.MustParse(`{}`),
		Output:     Output{Schema: jsonv.MustParse(`{}`), Render: func(_, _ jsonv.Value) ([]card.Content, error) { return nil, nil }},
		Execute: func(context.Context, jsonv.Value, RunContext) (jsonv.Value, error) {
			return jsonv.NullValue(), nil
		},
		PresentCall:   call,
		PresentResult: result,
	}
	if _, err := reg.Register(tool, nil); err != nil {
		t.Fatal(err)
	}
	return Presenter{Registry: reg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, reg.NewScope("s", nil)
}

func TestPresenter_Call(t *testing.T) {
	args := jsonv.MustParse(`{"x":1}`)
	for _, tc := range []struct {
		name      string
		present   func(jsonv.Value) card.CallView
		tool      string
		wantTitle string
	}{
		{"tool's card", func(jsonv.Value) card.CallView { return &card.Terminal{Title: "ls"} }, "t", "ls"},
		{"nil view falls back", func(jsonv.Value) card.CallView { return nil }, "t", "t"},
		{"typed nil falls back", func(jsonv.Value) card.CallView { return (*card.Diff)(nil) }, "t", "t"},
		{"panic falls back", func(jsonv.Value) card.CallView { panic("bad presenter") }, "t", "t"},
		{"no presenter falls back", nil, "t", "t"},
		{"unknown tool falls back", nil, "zzz", "zzz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := presenterWith(t, tc.present, nil)
			view := p.Call(tc.tool, args, s)
			switch v := view.(type) {
			case *card.Terminal:
				if v.Title != tc.wantTitle {
					t.Errorf("title %q", v.Title)
				}
			case *card.Generic:
				if v.Title != tc.wantTitle || v.Kind != card.KindOther || !v.RawInput.(jsonv.Value).Equal(args) {
					t.Errorf("fallback %+v", v)
				}
			default:
				t.Errorf("view %T", view)
			}
		})
	}
}

func TestPresenter_Result(t *testing.T) {
	raw := []card.Content{card.Text("raw result")}
	res := ToolResult{Content: raw}
	exit := 0
	for _, tc := range []struct {
		name    string
		present func(jsonv.Value, ToolResult) card.ResultView
		call    card.CallView
		want    string // "raw" (generic with raw content) or the card type
	}{
		{"tool's card", func(jsonv.Value, ToolResult) card.ResultView { return &card.DiffResult{} }, &card.Diff{}, "*card.DiffResult"},
		{"no remembered call", func(jsonv.Value, ToolResult) card.ResultView { return &card.DiffResult{} }, nil, "raw"},
		{"nil view", func(jsonv.Value, ToolResult) card.ResultView { return nil }, &card.Diff{}, "raw"},
		{"panic", func(jsonv.Value, ToolResult) card.ResultView { panic("bad") }, &card.Diff{}, "raw"},
		{"orphan terminal result", func(jsonv.Value, ToolResult) card.ResultView {
			return &card.TerminalResult{ExitCode: &exit}
		}, &card.Generic{Title: "x"}, "raw"},
		{"terminal result for a terminal call", func(jsonv.Value, ToolResult) card.ResultView {
			return &card.TerminalResult{ExitCode: &exit}
		}, &card.Terminal{Title: "ls"}, "*card.TerminalResult"},
		{"generic without content gets raw content", func(jsonv.Value, ToolResult) card.ResultView {
			return &card.GenericResult{Title: "Done"}
		}, &card.Generic{Title: "x"}, "raw"},
		{"no presenter", nil, &card.Generic{Title: "x"}, "raw"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := presenterWith(t, nil, tc.present)
			view := p.Result("t", jsonv.MustParse(`{}`), s, tc.call, res)
			if tc.want == "raw" {
				g, ok := view.(*card.GenericResult)
				if !ok || len(g.Content) != 1 || g.Content[0].TextValue() != "raw result" {
					t.Errorf("got %#v, want a generic card with the raw content", view)
				}
				return
			}
			if got := typeName(view); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *card.DiffResult:
		return "*card.DiffResult"
	case *card.TerminalResult:
		return "*card.TerminalResult"
	}
	return "other"
}

func TestCallArgs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `{}`},
		{"  ", `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"a":`, `"{\"a\":"`},
		{"\xff", `"` + "\uFFFD" + `"`},
	} {
		if got := CallArgs([]byte(tc.in)).String(); got != tc.want {
			t.Errorf("CallArgs(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
