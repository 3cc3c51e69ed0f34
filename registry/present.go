package registry

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Presenter turns a call and its result into cards through the tool that
// the calling scope sees, with the generic fallbacks. It is pure: the same
// durable inputs (name, arguments, scope's tool, result content, error
// state, meta) always give the same card, which is what lets session replay
// recompute cards from the log.
type Presenter struct {
	Registry *Registry
	Log      *slog.Logger // nil: slog.Default()
}

// CallArgs materializes a call's raw argument text for presenters: blank is
// {}, and text that is not lossless JSON is passed on as a JSON string.
func CallArgs(raw []byte) jsonv.Value {
	if len(bytes.TrimSpace(raw)) == 0 {
		return jsonv.MustParse(`{}`)
	}
	if v, err := jsonv.Parse(raw); err == nil {
		return v
	}
	v, err := jsonv.StringValue(string(raw))
	if err != nil {
		return jsonv.MustString(string(bytes.ToValidUTF8(raw, []byte("\uFFFD"))))
	}
	return v
}

func (p Presenter) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// genericCall is the fallback pending card: the tool's name, kind other,
// the raw arguments as input.
func genericCall(name string, args jsonv.Value) *card.Generic {
	return &card.Generic{Title: name, Kind: card.KindOther, RawInput: args}
}

// Call returns the pending card of a call: the tool's PresentCall, or the
// generic fallback when the tool is not visible, has no presenter, returns
// nil or panics.
func (p Presenter) Call(name string, args jsonv.Value, scope *Scope) card.CallView {
	tool := p.Registry.Get(name, scope)
	if tool == nil || tool.PresentCall == nil {
		return genericCall(name, args)
	}
	var view card.CallView
	func() {
		defer func() {
			if r := recover(); r != nil {
				p.log().Warn("presentCall failed; using the generic card", "tool", name, "panic", r)
				view = nil
			}
		}()
		view = tool.PresentCall(args)
	}()
	if view == nil || isNilView(view) {
		return genericCall(name, args)
	}
	return view
}

// Preview returns the pending card of a live call: the tool's
// PreviewCall, else (missing, nil, panicking) what Call returns. Replay
// uses Call, so a log replays to the same cards whatever the files hold.
func (p Presenter) Preview(ctx context.Context, name string, args jsonv.Value, scope *Scope) card.CallView {
	tool := p.Registry.Get(name, scope)
	if tool != nil && tool.PreviewCall != nil {
		var view card.CallView
		func() {
			defer func() {
				if r := recover(); r != nil {
					p.log().Warn("previewCall failed; using the pending card", "tool", name, "panic", r)
					view = nil
				}
			}()
			view = tool.PreviewCall(ctx, args)
		}()
		if view != nil && !isNilView(view) {
			return view
		}
	}
	return p.Call(name, args, scope)
}

// Result returns the completed card of a call, given the pending card it
// replaces (nil when the call is unknown, for example an orphaned result).
// The rules, in order: no pending card, or a presenter that is missing,
// returns nil or panics, gives a generic card with the raw content; a
// terminal result for a call that was not a terminal card is an orphan and
// gets the same fallback; a generic result without content gets the raw
// content.
func (p Presenter) Result(name string, args jsonv.Value, scope *Scope, call card.CallView, r ToolResult) card.ResultView {
	raw := &card.GenericResult{Content: r.Content}
	if call == nil {
		return raw
	}
	tool := p.Registry.Get(name, scope)
	if tool == nil || tool.PresentResult == nil {
		return raw
	}
	var view card.ResultView
	func() {
		defer func() {
			if rec := recover(); rec != nil {
				p.log().Warn("presentResult failed; using the generic card", "tool", name, "panic", rec)
				view = nil
			}
		}()
		view = tool.PresentResult(args, r)
	}()
	if view == nil || isNilView(view) {
		return raw
	}
	switch v := view.(type) {
	case *card.TerminalResult:
		if _, ok := call.(*card.Terminal); !ok {
			return raw // orphan guard
		}
	case *card.GenericResult:
		if v.Content == nil {
			filled := *v
			filled.Content = r.Content
			return &filled
		}
	}
	return view
}

// isNilView reports a typed nil pointer inside a view interface.
func isNilView(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
