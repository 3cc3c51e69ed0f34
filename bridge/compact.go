package bridge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
)

// requestBytes estimates the size of a request: system prompt, tools and
// history.
func requestBytes(system string, tools []model.Tool, hist []model.Message) int {
	n := len(system) + model.HistoryBytes(hist)
	for _, t := range tools {
		n += 64 + len(t.Name) + len(t.Description) + len(t.Parameters.Bytes())
	}
	return n
}

// modelTools is the model's view of the tools a scope offers it.
func modelTools(schemas []registry.ToolSchema) []model.Tool {
	out := make([]model.Tool, len(schemas))
	for i, t := range schemas {
		out[i] = model.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	}
	return out
}

// tokensPerByte converts an estimated size to tokens, calibrated by the
// last request's real prompt tokens; before any, a cautious 1 token per 3
// bytes.
func (m *modelState) tokensPerByte() float64 {
	if m.lastPrompt > 0 && m.lastBytes > 0 {
		return float64(m.lastPrompt) / float64(m.lastBytes)
	}
	return 1.0 / 3
}

// compactIfNeeded compacts the history when the next request would pass
// the configured share of the window, or always when force is set (the
// API refused the last request as too long). It reports whether anything
// was compacted.
//
// fixed is the size of the request's system prompt and tools.
func (ss *Session) compactIfNeeded(ctx context.Context, fixed int, force bool) bool {
	return ss.compact(ctx, fixed, force, false)
}

// compact is compactIfNeeded; whole summarises every message rather than
// the oldest turns that bring the history under half the limit (/compact).
func (ss *Session) compact(ctx context.Context, fixed int, force, whole bool) bool {
	s := ss.srv
	cfg := s.settings().Compaction
	ss.mu.Lock()
	m := ss.model
	ss.mu.Unlock()
	info := s.modelInfo(m.id)
	tpb := m.tokensPerByte()
	estimate := func(h []model.Message) float64 { return float64(fixed+model.HistoryBytes(h)) * tpb }
	limit := cfg.Threshold * float64(info.Window)
	if m.maxBody > 0 { // the endpoint refused a body that size: stay under it as under the window
		limit = min(limit, cfg.Threshold*float64(m.maxBody)*tpb)
	}
	if !force && float64(fixed+ss.history.Bytes())*tpb <= limit { // as estimate, kept as messages come
		return false
	}
	hist := ss.history.Messages()
	// The last batch's syntax tokens go out first, so that the updates
	// come in the same order every run (as before a model's answer).
	ss.tokens.Wait()
	id := fmt.Sprintf("compaction_%d", time.Now().UnixNano())
	ss.announceCompaction(ctx, compactionUpdate{CompactionID: id, Status: "in_progress"})

	budget := int(cfg.ToolResultBudget * float64(info.Window) / tpb)
	out, shrunk := model.ShrinkToolResults(hist, budget)
	through, summary := 0, ""
	var failure error
	if force || estimate(out) > limit {
		ends := model.TurnEnds(out)
		for _, k := range ends {
			through = k
			if estimate(out[k:]) <= limit/2 {
				break
			}
		}
		if whole {
			through = len(out)
		}
		if through > 0 {
			summary, failure = ss.summarise(ctx, out[:through], info, tpb)
			if failure != nil {
				through = 0
			} else {
				out = model.Summarised(summary, out[through:])
			}
		}
	}
	if len(shrunk) == 0 && through == 0 {
		status, msg := "failed", "nothing in the conversation could be compacted"
		if failure != nil {
			msg = "the summary request failed: " + failure.Error()
		}
		if ctx.Err() != nil {
			status = "cancelled"
		}
		ss.announceCompaction(ctx, compactionUpdate{CompactionID: id, Status: status, Error: msg})
		return false
	}
	ss.history.Replace(out)
	ss.record(store.Event{Kind: store.KindCompaction, Compaction: &store.Compaction{ID: id, Shrunk: shrunk, Through: through, Summary: summary}})
	ss.announceCompaction(ctx, compactionUpdate{CompactionID: id, Status: "completed",
		Summary: []card.Content{card.Text(compactionText(len(shrunk), through, summary))}})
	return true
}

func compactionText(shrunk, through int, summary string) string {
	s := ""
	if shrunk > 0 {
		s = fmt.Sprintf("Replaced %d old tool results with placeholders (the session log keeps them whole).", shrunk)
	}
	if through > 0 {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("Summarised the %d oldest messages:\n\n%s", through, summary)
	}
	return s
}

// summarise asks the model for a summary of msgs, with thinking off.
func (ss *Session) summarise(ctx context.Context, msgs []model.Message, info model.Info, tpb float64) (string, error) {
	maxBytes := int(float64(info.Window) * 0.5 / tpb)
	prompt := []model.Message{{Role: "user", Content: "Summarise this conversation transcript:\n\n" + model.Transcript(msgs, maxBytes)}}
	req := model.Request{Model: info.ID, System: model.SummaryPrompt, Messages: prompt, Thinking: model.ThinkingOff, MaxTokens: 2048}
	resp, err := ss.srv.cfg.Model.Complete(ctx, req, model.Handler{})
	if err != nil {
		return "", err
	}
	ss.account(ctx, resp, requestBytes(model.SummaryPrompt, nil, prompt), false)
	if resp.Text == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return resp.Text, nil
}

// announceCompaction tells the editor: a compaction_update where the
// client advertised session.compaction, else a notice once it completed.
func (ss *Session) announceCompaction(ctx context.Context, u compactionUpdate) {
	u.SessionUpdate = "compaction_update"
	if ss.caps.Session.Compaction != nil {
		ss.srv.notify(ctx, ss.id, u)
		return
	}
	switch u.Status {
	case "completed":
		ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: "info",
			Title: "The conversation was compacted to fit the context window", Description: u.Summary[0].TextValue()})
	case "failed":
		ss.srv.notify(ctx, ss.id, noticeUpdate{SessionUpdate: "notice", Severity: "warning",
			Title: "The conversation could not be compacted", Description: u.Error})
	}
}

// account records one response's usage and sends usage_update: used is
// the request's prompt tokens (what is in context), size the model's
// window, cost the session's running total where the price is known.
// conversation says whether the request carried the conversation: only
// then does it calibrate the token estimate and report what is in context
// (a summary request adds its cost to the next update).
func (ss *Session) account(ctx context.Context, resp model.Response, bytes int, conversation bool) {
	ss.mu.Lock()
	ss.turnUsage.add(resp.Usage)
	ss.mu.Unlock()
	if upd, ok := ss.recordUsage(resp, bytes, conversation); ok && conversation {
		ss.srv.notify(ctx, ss.id, upd)
	}
}

// charge records the usage and cost of a request that is not the
// conversation's (the title request): logged and added to the session's
// cost, as every request is, but part of no turn's usage. Its
// usage_update shows the new total with the conversation's context as
// the last one did, so that the cost on screen is the one a load
// replays.
func (ss *Session) charge(ctx context.Context, resp model.Response) {
	upd, ok := ss.recordUsage(resp, 0, false)
	if !ok || upd.Cost == nil {
		return
	}
	ss.mu.Lock()
	upd.Used = ss.model.lastPrompt
	ss.mu.Unlock()
	ss.srv.notify(ctx, ss.id, upd)
}

// recordUsage logs one response's usage, adds its cost to the session's, and
// returns the usage_update it makes (ok false: it reported no usage).
func (ss *Session) recordUsage(resp model.Response, bytes int, conversation bool) (usageUpdate, bool) {
	u := resp.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return usageUpdate{}, false
	}
	s := ss.srv
	ss.mu.Lock()
	id := ss.model.id
	info := s.modelInfo(id)
	cost, priced := info.Cost(u, s.now())
	cost = roundUSD(cost)
	if conversation {
		ss.model.lastPrompt, ss.model.lastBytes = u.PromptTokens, bytes
	}
	if priced {
		ss.model.cost += cost
		ss.model.priced = true
	}
	total := roundUSD(ss.model.cost)
	ss.mu.Unlock()
	rec := &store.Usage{Model: id, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CacheHit: u.CacheHit, CacheMiss: u.CacheMiss}
	upd := usageUpdate{SessionUpdate: "usage_update", Used: u.PromptTokens, Size: info.Window}
	if priced {
		rec.CostUSD = &cost
		upd.Cost = &costInfo{Amount: total, Currency: "USD"}
	}
	if conversation {
		rec.Bytes = bytes
	}
	ss.record(store.Event{Kind: store.KindUsage, Usage: rec})
	return upd, true
}

// refusedBody notes that the endpoint refused a request body of n bytes
// as too large (HTTP 413): from now on the session's requests are
// compacted to stay under the smallest such size.
func (ss *Session) refusedBody(n int) {
	if n <= 0 {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.model.maxBody == 0 || n < ss.model.maxBody {
		ss.model.maxBody = n
	}
	ss.srv.log.Warn("the model endpoint refused a request as too large; requests will be compacted below it", "session", ss.id, "bytes", n)
}

// roundUSD rounds an amount of dollars to the nanodollar. Prices are per
// million tokens, so every cost is a whole number of them, but float
// arithmetic is not decimal: sums came out as 0.0006386339999999999 in
// the editor's usage display and the session log.
func roundUSD(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

// now is the server's clock (for prices that depend on the hour).
func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}
