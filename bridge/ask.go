package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dsh-bridge/dsh-bridge/ask"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// registerAsk gives a session the ask_user tool, whose questions the
// session puts to the person (Ask).
func (ss *Session) registerAsk() error {
	return ss.register(ask.Tool(ss))
}

// Ask implements ask.Asker, from the tool's body (on the turn's
// goroutine, never the read loop): the question goes as a form
// elicitation to a client that advertised elicitation.form, else as a
// permission request with the choices as its options; a free-text
// question to a client without elicitation is not put at all. It waits
// for the answer as long as ctx (the turn) lasts; a cancelled turn
// returns ctx's error, which the pipeline reports as the call aborted.
func (ss *Session) Ask(ctx context.Context, callID string, a ask.Args) (ask.Reply, error) {
	s := ss.srv
	call := func(method string, params, res any) error {
		ss.syncLog() // what led here survives a crash while the person answers
		return s.conn.Call(ctx, method, params, res)
	}
	switch ask.Route(ss.caps.Elicitation.Form != nil, a) {
	case ask.ByElicitation:
		params := map[string]any{"sessionId": ss.id, "toolCallId": callID, "mode": "form",
			"message": a.Question, "requestedSchema": ask.Form(a)}
		var got ask.Elicited
		if err := call("elicitation/create", params, &got); err != nil {
			return clientFailed(ctx, "elicitation/create", err)
		}
		if ctx.Err() != nil { // cancelled while the person answered
			return ask.Reply{}, ctx.Err()
		}
		return ask.FromElicitation(a, got), nil
	case ask.ByPermission:
		args := registry.CallArgs(mustJSON(a))
		view := s.presenter.Call(ask.ToolName, args, ss.scope)
		ss.mu.Lock()
		if info := ss.calls[callID]; info != nil {
			view = info.view
		}
		ss.mu.Unlock()
		params := map[string]any{"sessionId": ss.id, "toolCall": views.Permission(ss.env, callID, ask.ToolName, view, args), "options": ask.Options(a)}
		var resp permissionResponse
		if err := call("session/request_permission", params, &resp); err != nil {
			return clientFailed(ctx, "session/request_permission", err)
		}
		if ctx.Err() != nil {
			return ask.Reply{}, ctx.Err()
		}
		return ask.FromPermission(a, resp.Outcome.Outcome, resp.Outcome.OptionID), nil
	}
	return ask.Reply{Outcome: ask.Unavailable, Why: ask.NoFreeText}, nil
}

// clientFailed is the reply to a question whose request to the client
// failed: the turn's end when it was cancelled, else a reply the model
// reads.
func clientFailed(ctx context.Context, method string, err error) (ask.Reply, error) {
	if ctx.Err() != nil {
		return ask.Reply{}, ctx.Err()
	}
	return ask.Reply{Outcome: ask.Unavailable, Why: fmt.Sprintf("the editor's answer to %s was an error (%v)", method, err)}, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
