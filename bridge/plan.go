package bridge

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/model"
	"github.com/dsh-bridge/dsh-bridge/plan"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// planID is the one plan a session keeps (todo_write's), stable for the
// session's life and across session/load.
const planID = "todo"

// planEntry is an ACP PlanEntry.
type planEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// planUpdate is the v1 `plan` session update every client takes.
type planUpdate struct {
	SessionUpdate string      `json:"sessionUpdate"`
	Entries       []planEntry `json:"entries"`
}

// Plan operations, for clients that advertise clientCapabilities.plan.
// Shapes from the ACP site's "Plan operations are stabilized" (November
// 20, 2026; agentclientprotocol.com/announcements/plan-operations-stabilized)
// and its v1 agent-plan page (protocol/v1/agent-plan#plan-operations),
// read 2026-12-04: plan_update carries a plan with a `type` ("items")
// and a `planId`, replaced whole by the next update with that id;
// plan_removed carries the planId alone.
type planItems struct {
	Type    string      `json:"type"`
	PlanID  string      `json:"planId"`
	Entries []planEntry `json:"entries"`
}

type planOpUpdate struct {
	SessionUpdate string    `json:"sessionUpdate"`
	Plan          planItems `json:"plan"`
}

type planRemoved struct {
	SessionUpdate string `json:"sessionUpdate"`
	PlanID        string `json:"planId"`
}

// sendPlan turns a finished todo_write call into the session's plan
// update on session (the card's): the same for a live call and a
// replayed one, since the call's arguments are the plan.
func (ss *Session) sendPlan(ctx context.Context, session string, tc model.ToolCall, r registry.ToolResult) {
	if tc.Name != plan.ToolName || r.IsError {
		return
	}
	items, err := plan.Parse([]byte(tc.Arguments))
	if err != nil {
		return
	}
	entries := make([]planEntry, len(items))
	for i, it := range items {
		entries[i] = planEntry{Content: it.Content, Priority: it.Priority, Status: it.Status}
	}
	switch {
	case ss.caps.Plan == nil:
		ss.srv.notify(ctx, session, planUpdate{SessionUpdate: "plan", Entries: entries})
	case len(entries) == 0:
		ss.srv.notify(ctx, session, planRemoved{SessionUpdate: "plan_removed", PlanID: planID})
	default:
		ss.srv.notify(ctx, session, planOpUpdate{SessionUpdate: "plan_update", Plan: planItems{Type: "items", PlanID: planID, Entries: entries}})
	}
}

// registerPlan gives a session the todo_write tool.
func (ss *Session) registerPlan() error {
	return ss.register(plan.Tool())
}

// register registers t, made by a tool's constructor that failed with
// err if not nil, on the session's scope until the session closes.
func (ss *Session) register(t *registry.Tool, err error) error {
	if err != nil {
		return err
	}
	dispose, err := ss.srv.reg.Register(t, ss.scope)
	if err != nil {
		return err
	}
	ss.disposers = append(ss.disposers, dispose)
	return nil
}
