package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/metrics"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/codemode"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// Stop reasons.
const (
	stopEndTurn   = "end_turn"
	stopMaxTokens = "max_tokens"
	stopMaxReqs   = "max_turn_requests"
	stopRefusal   = "refusal"
	stopCancelled = "cancelled"
)

// beginTurn makes the idle session busy with a turn on a context of
// its own (what session/cancel cancels), or fails with ErrBusy; end
// makes it idle again.
func (ss *Session) beginTurn(ctx context.Context) (_ context.Context, end func(), _ error) {
	tctx, cancel := context.WithCancel(ctx)
	ss.mu.Lock()
	if ss.cancel != nil {
		ss.mu.Unlock()
		cancel()
		return nil, nil, ErrBusy
	}
	ss.cancel = cancel
	ss.turns.Add(1)
	ss.mu.Unlock()
	return tctx, func() {
		ss.mu.Lock()
		ss.cancel = nil
		ss.mu.Unlock()
		cancel()
		ss.turns.Done()
	}, nil
}

func (s *Server) prompt(ctx context.Context, p promptParams) (promptResult, error) {
	ss, err := s.requireSession(ctx, p.SessionID)
	if errors.Is(err, context.Canceled) {
		// session/cancel came while the session was still being restored.
		return promptResult{StopReason: "cancelled"}, nil
	}
	if err != nil {
		return promptResult{}, err
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return promptResult{}, err
	}
	tctx, end, err := ss.beginTurn(ctx)
	if err != nil {
		return promptResult{}, err
	}
	defer end()
	ss.advertiseCommands(tctx)
	ss.mu.Lock()
	ss.turnUsage = turnUsage{}
	ss.mu.Unlock()
	if c, args, ok := ss.invocation(text); ok {
		if c.Prompt == "" {
			stop := ss.runAction(tctx, c, args)
			return promptResult{StopReason: stop, Usage: ss.usageOfTurn()}, nil
		}
		text = c.Expand(args)
	}
	msgID := ss.claimMessageID(p.MessageID)
	ss.history.Append(model.Message{Role: "user", Content: text})
	ss.record(store.Event{Kind: store.KindUser, Text: text, MessageID: msgID})
	first := ss.provisionalTitle(text)
	ss.ckpt.Begin()
	stop := ss.turn(tctx)
	if first {
		ss.name(tctx, text, stop)
	}
	ss.tokens.Wait() // every update of the turn goes out before its answer
	ss.pruneCalls()
	ss.recordCheckpoint(msgID)
	ss.record(store.Event{Kind: store.KindTurnEnd, StopReason: stop})
	ss.syncLog()
	ss.logTurnEnd(ctx, stop)
	if ss.srv.cfg.AfterTurn != nil {
		ss.srv.cfg.AfterTurn(ss.srv.historyBytes())
	}
	return promptResult{StopReason: stop, Usage: ss.usageOfTurn(), Meta: map[string]any{"dsh": map[string]any{"userMessageId": msgID}}}, nil
}

// usageOfTurn is the running turn's usage for its answer (nil: none).
func (ss *Session) usageOfTurn() *turnUsage {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.turnUsage.result()
}

// logTurnEnd logs, at debug level, what the session holds once a turn has
// ended: its history's messages and bytes, and the process's live heap as
// of the last collection (runtime/metrics; nothing is collected for it).
// A session that grows beyond its history shows here.
func (ss *Session) logTurnEnd(ctx context.Context, stop string) {
	if !ss.srv.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	n, bytes := ss.history.Len(), ss.history.Footprint()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	var live uint64
	if sample[0].Value.Kind() == metrics.KindUint64 {
		live = sample[0].Value.Uint64()
	}
	ss.srv.log.Debug("turn ended", "session", ss.id, "stop", stop, "historyMessages", n, "historyBytes", bytes, "heapLiveBytes", live)
}

// historyBytes is what every session's history holds, summed.
func (s *Server) historyBytes() int {
	s.mu.Lock()
	sessions := make([]*Session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	n := 0
	for _, ss := range sessions {
		n += ss.history.Footprint()
	}
	return n
}

// promptText flattens prompt blocks into the user message: text as is,
// resource links as a reference line, embedded text resources inline.
func promptText(blocks []card.Content) (string, error) {
	var b strings.Builder
	for _, c := range blocks {
		v := c.Value()
		switch c.Type() {
		case card.TypeText:
			b.WriteString(c.TextValue())
		case card.TypeResourceLink:
			uri, _ := v.Get("uri")
			name, _ := v.Get("name")
			fmt.Fprintf(&b, "\n[resource_link name=%q uri=%q]\n", name.Str(), uri.Str())
		case card.TypeResource:
			res, _ := v.Get("resource")
			uri, _ := res.Get("uri")
			if t, ok := res.Get("text"); ok {
				fmt.Fprintf(&b, "\n<resource uri=%q>\n%s\n</resource>\n", uri.Str(), t.Str())
			} else {
				fmt.Fprintf(&b, "\n[binary resource uri=%q omitted]\n", uri.Str())
			}
		default:
			return "", acp.InvalidParams("session/prompt: %s blocks are not supported (promptCapabilities)", c.Type())
		}
	}
	return b.String(), nil
}

func (ss *Session) systemPrompt() string {
	base := ss.basePrompt()
	reg := ss.srv.reg
	if sdk := codemode.PromptSections(reg.EffectivePresentation(ss.scope), reg.Visible(ss.scope)); sdk != "" {
		return base + "\n\n" + sdk
	}
	return base
}

// turn runs the agent loop until the model stops, the request cap is hit,
// or ctx is cancelled; every update is sent before it returns.
func (ss *Session) turn(ctx context.Context) string {
	s := ss.srv
	if s.cfg.Model == nil {
		msg := "No model is configured"
		if s.cfg.ModelErr != nil {
			msg += ": " + s.cfg.ModelErr.Error()
		}
		ss.say(ctx, msg)
		return stopEndTurn
	}
	if !ss.checkModel(ctx) {
		return stopEndTurn
	}
	tools := modelTools(s.reg.ModelSchemas(ss.scope))
	system := ss.systemPrompt()
	fixed := requestBytes(system, tools, nil) // once a turn: tools do not change within it
	refused := false                          // the API refused the last request as too long
	for n := 0; ; n++ {
		if n >= s.cfg.MaxTurnRequests {
			return stopMaxReqs
		}
		if ctx.Err() != nil {
			return stopCancelled
		}
		ss.compactIfNeeded(ctx, fixed, refused)
		if ctx.Err() != nil {
			return stopCancelled
		}
		ss.mu.Lock()
		req := model.Request{Model: ss.model.id, System: system, History: &ss.history, Tools: tools, Thinking: ss.model.thinking}
		listed := ss.model.listed
		ss.mu.Unlock()
		if !s.modelInfo(req.Model).Thinking {
			req.Thinking = model.ThinkingDefault
		}
		size := fixed + ss.history.Bytes()
		// The last batch's syntax tokens go out before anything of this
		// answer (a scripted model answers at once), so that the order of
		// updates is the same every time; a real model's first event comes
		// long after they are made. The request is already on its way.
		settled := false
		settle := func() {
			if !settled {
				settled = true
				ss.tokens.Wait()
			}
		}
		msgID := ss.nextAgentMessage()
		ans := newAnswerCards(&ss.cards) // the editor sees card ids, the history the model's
		resp, err := s.cfg.Model.Complete(ctx, req, model.Handler{
			OnText: func(d string) {
				settle()
				s.notify(ctx, ss.id, contentChunk{SessionUpdate: "agent_message_chunk", Content: card.Text(d), MessageID: msgID})
			},
			OnReasoning: func(d string) {
				settle()
				s.notify(ctx, ss.id, contentChunk{SessionUpdate: "agent_thought_chunk", Content: card.Text(d), MessageID: msgID})
			},
			OnToolCall: func(tc model.ToolCall) { settle(); ss.announceLive(ctx, ans.announced(tc)) },
		})
		settle()
		if ctx.Err() != nil {
			if err == nil {
				ss.account(ctx, resp, size, true) // a whole answer is paid for, cancelled or not
			}
			ss.commitAssistant(resp, nil, nil)
			ss.failUnfinished(ctx, ans.cards(append(resp.ToolCalls, resp.Announced...)))
			return stopCancelled
		}
		if err != nil {
			var apiErr *model.APIError
			if errors.As(err, &apiErr) && apiErr.TooLarge() {
				ss.refusedBody(apiErr.RequestBytes) // whenever it comes: later requests stay under it
			}
			if apiErr != nil && (apiErr.ContextTooLong() || apiErr.TooLarge()) && !refused {
				refused = true // compact whatever it takes, then try once more
				continue
			}
			ss.modelFailed(ctx, req.Model, listed, resp, ans.cards(resp.Announced), err)
			return stopEndTurn
		}
		refused = false
		ss.account(ctx, resp, size, true)
		if len(resp.ToolCalls) == 0 {
			ss.commitAssistant(resp, nil, nil)
			switch resp.FinishReason {
			case "length":
				return stopMaxTokens
			case "content_filter":
				return stopRefusal
			}
			return stopEndTurn
		}
		cards := ans.cards(resp.ToolCalls)
		results := ss.runTools(ctx, cards)
		ss.addInstructions(ctx, cards, results)
		ss.reportNewRepos(ctx)
		ss.commitAssistant(resp, cards, results)
		concluded := true
		for _, r := range results {
			concluded = concluded && !r.IsError && r.ConcludesTurn
		}
		if ctx.Err() != nil {
			return stopCancelled
		}
		if concluded {
			return stopEndTurn
		}
	}
}

// modelFailed ends a turn whose model request failed: what streamed is
// kept (in the history and the log), calls announced before a cut (as
// cards) are failed, and the person reads what went wrong and what to do.
func (ss *Session) modelFailed(ctx context.Context, modelID string, listed []string, resp model.Response, announced []model.ToolCall, err error) {
	ss.srv.log.Error("model request failed", "model", modelID, "err", err)
	ss.commitAssistant(resp, nil, nil)
	ss.failUnfinished(ctx, announced)
	var apiErr *model.APIError
	var msg string
	switch {
	case errors.As(err, &apiErr):
		msg = apiErr.Explain(modelID, listed)
	case errors.Is(err, model.ErrStreamCut):
		msg = "The model's answer was cut off (" + err.Error() + "). What arrived is kept above; send a message to continue."
	default:
		msg = "The model request failed: " + err.Error()
	}
	ss.say(ctx, "\n\n[model error] "+msg)
}

// commitAssistant appends the assistant message and its tool results (in
// model order) to the history, with additional contexts after them; the
// history keeps the model's call ids, the log their cards' too.
func (ss *Session) commitAssistant(resp model.Response, cards []model.ToolCall, results []registry.Result) {
	ss.recordTurn(resp, cards, results)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if resp.Text == "" && len(resp.ToolCalls) == 0 {
		return
	}
	if results == nil && len(resp.ToolCalls) > 0 {
		resp.ToolCalls = nil // cancelled before they ran: keep only the text
		if resp.Text == "" {
			return
		}
	}
	add := make([]model.Message, 0, 1+len(results))
	add = append(add, model.Message{Role: "assistant", Content: resp.Text, Reasoning: resp.Reasoning, ToolCalls: resp.ToolCalls})
	var contexts []string
	for i, r := range results {
		add = append(add, model.Message{Role: "tool", ToolCallID: resp.ToolCalls[i].ID, Content: ss.resultText(r)})
		for _, c := range r.AdditionalContexts {
			contexts = append(contexts, blocksText(c.Content))
		}
	}
	for _, c := range contexts {
		add = append(add, model.Message{Role: "user", Content: c})
	}
	ss.history.Append(add...)
}

// resultText is what the model reads of a result, capped at the
// configured size.
func (ss *Session) resultText(r registry.Result) string {
	return model.CapToolResult(resultText(r), ss.srv.settings().Compaction.MaxToolResultBytes)
}

// resultText is what the model reads of a result, with every secret
// value redacted.
func resultText(r registry.Result) string {
	if t := blocksText(r.Content); t != "" {
		return secrets.Redact(t)
	}
	if r.IsError && r.Error != nil {
		return "Error: " + secrets.Redact(r.Error.Message)
	}
	return "(no content)"
}

func blocksText(blocks []card.Content) string {
	var parts []string
	for _, b := range blocks {
		if b.Type() == card.TypeText {
			parts = append(parts, b.TextValue())
		} else {
			parts = append(parts, "["+b.Type()+" content omitted]")
		}
	}
	return strings.Join(parts, "\n")
}
