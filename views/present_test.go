package views

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

func presenterWith(t *testing.T, call func(jsonv.Value) card.CallView, result func(jsonv.Value, registry.ToolResult) card.ResultView) (Presenter, *registry.Scope) {
	t.Helper()
	reg := registry.New()
	tool := &registry.Tool{
		Name:       "t",
		Parameters: jsonv.MustParse(`{}`),
		Output:     registry.Output{Schema: jsonv.MustParse(`{}`), Render: func(_, _ jsonv.Value) ([]card.Content, error) { return nil, nil }},
		Execute: func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
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
	res := registry.ToolResult{Content: raw}
	exit := 0
	for _, tc := range []struct {
		name    string
		present func(jsonv.Value, registry.ToolResult) card.ResultView
		call    card.CallView
		want    string // "raw" (generic with raw content) or the card type
	}{
		{"tool's card", func(jsonv.Value, registry.ToolResult) card.ResultView { return &card.DiffResult{} }, &card.Diff{}, "*card.DiffResult"},
		{"no remembered call", func(jsonv.Value, registry.ToolResult) card.ResultView { return &card.DiffResult{} }, nil, "raw"},
		{"nil view", func(jsonv.Value, registry.ToolResult) card.ResultView { return nil }, &card.Diff{}, "raw"},
		{"panic", func(jsonv.Value, registry.ToolResult) card.ResultView { panic("bad") }, &card.Diff{}, "raw"},
		{"orphan terminal result", func(jsonv.Value, registry.ToolResult) card.ResultView {
			return &card.TerminalResult{ExitCode: &exit}
		}, &card.Generic{Title: "x"}, "raw"},
		{"terminal result for a terminal call", func(jsonv.Value, registry.ToolResult) card.ResultView {
			return &card.TerminalResult{ExitCode: &exit}
		}, &card.Terminal{Title: "ls"}, "*card.TerminalResult"},
		{"generic without content gets raw content", func(jsonv.Value, registry.ToolResult) card.ResultView {
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

func TestArgs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `{}`},
		{"  ", `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"a":`, `"{\"a\":"`},
		{"\xff", `"` + "\uFFFD" + `"`},
	} {
		if got := Args([]byte(tc.in)).String(); got != tc.want {
			t.Errorf("Args(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestANSI(t *testing.T) {
	rc := &card.Read{Path: "a.go", Offset: 9, Lines: []card.ReadFileLine{{Number: 9, Text: "package main"}, {Number: 10, Text: "s := \"é𝄞\" // x"}}}
	tokens := highlight.TokenLines{
		{{Start: 0, End: 7, Type: "KeywordNamespace"}, {Start: 8, End: 12, Type: "NameOther"}},
		{{Start: 5, End: 10, Type: "LiteralStringDouble"}, {Start: 11, End: 15, Type: "CommentSingle"}},
	}
	t.Run("line numbers and colours by type prefix", func(t *testing.T) {
		out := ANSI(rc, tokens)
		if !strings.Contains(out, " 9 │") || !strings.Contains(out, "10 │") || strings.Count(out, "\n") != 2 {
			t.Errorf("line numbers: %q", out)
		}
		for _, want := range []string{
			"\x1b[38;5;197mpackage\x1b[0m main", // KeywordNamespace; NameOther has no colour
			"s := \x1b[38;5;186m\"é𝄞\"\x1b[0m",  // UTF-16 columns: 𝄞 is two units
			"\x1b[38;5;101m// x\x1b[0m",         // CommentSingle → Comment
		} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in %q", want, out)
			}
		}
	})
	t.Run("no tokens is plain text", func(t *testing.T) {
		out := ANSI(rc, nil)
		if strings.Contains(out, "\x1b[38;5;") || !strings.Contains(out, "package main") {
			t.Errorf("plain: %q", out)
		}
	})
	t.Run("spans past the line or overlapping are skipped", func(t *testing.T) {
		out := ANSI(rc, highlight.TokenLines{{{Start: 3, End: 99, Type: "Keyword"}, {Start: 1, End: 2, Type: "Keyword"}}})
		if !strings.Contains(out, "pac\x1b[38;5;81mkage main\x1b[0m") {
			t.Errorf("got %q", out)
		}
	})
}
