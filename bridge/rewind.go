package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dsh-bridge/dsh-bridge/acp"
	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/checkpoint"
	"github.com/dsh-bridge/dsh-bridge/registry"
	"github.com/dsh-bridge/dsh-bridge/store"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// rewindMethod is the extension method that rewinds a session, shaped
// as the draft RFD's session/rewind ({sessionId, toMessageId}; issue 53,
// read 2026-12-07) under dsh-bridge's own prefix until ACP has one.
const rewindMethod = "_dsh/session/rewind"

func newMessageID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "msg_" + hex.EncodeToString(b)
}

// userMessageID is the id of a prompt's user message: the client's when
// it is a valid name, else a new one.
func userMessageID(client string) string {
	if registry.IsName(client, 128) {
		return client
	}
	return newMessageID()
}

// nextAgentMessage starts a new assistant message: its id, also the one
// its log event gets.
func (ss *Session) nextAgentMessage() string {
	id := newMessageID()
	ss.noteMessageIDs(id)
	ss.mu.Lock()
	ss.agentMsg = id
	ss.mu.Unlock()
	return id
}

// recordCheckpoint ends the turn's checkpoint: its changes are logged
// under the turn's user message id once known (after the turn's end
// when a command ran: the walk that finds its changes runs after the
// answer).
func (ss *Session) recordCheckpoint(msgID string) {
	ss.ckpt.End(func(changes []checkpoint.Change, err error) {
		if err != nil {
			ss.srv.log.Warn("a pre-image could not be taken; that file is not undoable", "session", ss.id, "err", err)
		}
		if len(changes) > 0 {
			ss.record(store.Event{Kind: store.KindCheckpoint, MessageID: msgID, Checkpoint: changes})
			ss.syncLog()
		}
	})
}

type rewindParams struct {
	SessionID   string `json:"sessionId"`
	ToMessageID string `json:"toMessageId"`
}

// rewindResult says what a rewind did; every list holds paths.
type rewindResult struct {
	// Restored went back to what they held before the turn.
	Restored []string `json:"restored"`
	// Kept were changed by someone else since, and kept as they are.
	Kept []string `json:"kept,omitempty"`
	// NotRestorable were changed by a command whose pre-image was never
	// taken; Failed could not be written (or lead elsewhere now, or into
	// the state folder).
	NotRestorable []string `json:"notRestorable,omitempty"`
	Failed        []string `json:"failed,omitempty"`
	// Cancelled: the person cancelled; nothing was changed.
	Cancelled bool `json:"cancelled,omitempty"`
}

// errNoHistory means a rewind found no log to rewind.
var errNoHistory = errors.New("this session has no session log, so it cannot be rewound")

// rewindSession serves _dsh/session/rewind: like a prompt, it needs the
// session idle.
func (s *Server) rewindSession(ctx context.Context, p rewindParams) (rewindResult, error) {
	ss, err := s.requireSession(ctx, p.SessionID)
	if err != nil {
		return rewindResult{}, err
	}
	tctx, end, err := ss.beginTurn(ctx)
	if errors.Is(err, ErrBusy) {
		return rewindResult{}, ErrRewindBusy
	}
	if err != nil {
		return rewindResult{}, err
	}
	defer end()
	turns, err := ss.loggedTurns()
	if err != nil {
		return rewindResult{}, acp.InvalidParams("%s: %v", rewindMethod, err)
	}
	k := turnOf(turns, p.ToMessageID)
	if k < 0 {
		return rewindResult{}, acp.InvalidParams("%s: no message %q in this session's history", rewindMethod, p.ToMessageID)
	}
	return ss.rewindTo(tctx, turns, k), nil
}

// loggedTurns are the session's complete turns, as its log holds them
// now (rewinds applied).
func (ss *Session) loggedTurns() ([]replayTurn, error) {
	logs := ss.srv.store()
	if logs == nil || ss.log == nil || ss.blobs == nil {
		return nil, errNoHistory
	}
	ss.ckpt.Wait() // the last turn's changes are in the log
	events, _, err := logs.Load(ss.id)
	if err != nil {
		return nil, err
	}
	turns, _, _ := completeTurns(events)
	return turns, nil
}

// rewindTo undoes the file changes of turns[k:] and cuts the history
// before turns[k]: files changed by someone else since are listed and
// the person chooses (keep theirs, take the checkpoint, cancel).
func (ss *Session) rewindTo(ctx context.Context, turns []replayTurn, k int) rewindResult {
	var chain [][]checkpoint.Change
	for _, t := range turns[k:] {
		chain = append(chain, t.changes)
	}
	plan := checkpoint.Plan(chain, checkpoint.Now)
	res := rewindResult{Restored: []string{}, NotRestorable: plan.Unknown}
	take := false
	if len(plan.Conflicts) > 0 {
		switch ss.askConflicts(ctx, turns[k], plan.Conflicts) {
		case conflictCancel:
			return rewindResult{Restored: []string{}, Cancelled: true}
		case conflictTake:
			take = true
		}
	}
	steps := plan.Restore
	if take {
		steps = append(steps, plan.Conflicts...)
	} else {
		for _, c := range plan.Conflicts {
			res.Kept = append(res.Kept, c.Path)
		}
	}
	restored, failed := checkpoint.Apply(ss.blobs, steps, ss.restorable)
	res.Restored = append(res.Restored, restored...)
	for p, err := range failed {
		ss.srv.log.Warn("a file could not be restored", "session", ss.id, "path", p, "err", err)
		res.Failed = append(res.Failed, p)
	}
	ss.record(store.Event{Kind: store.KindRewind, MessageID: turnID(turns[k])})
	ss.syncLog()
	ss.history.Replace(ss.rebuildHistory(turns[:k]))
	return res
}

// turnID is the first message id of a turn (its user message's).
func turnID(t replayTurn) string {
	for _, e := range t.events {
		if e.MessageID != "" {
			return e.MessageID
		}
	}
	return ""
}

// The answers to a rewind's conflict prompt.
const (
	conflictKeep   = "keep"
	conflictTake   = "take"
	conflictCancel = "cancel"
)

// conflictOptions are the three choices; their kinds are the closest
// of ACP's four (PermissionOptionKind, schema.json).
var conflictOptions = []permissionOption{
	{OptionID: conflictKeep, Name: "Keep mine", Kind: "reject_once"},
	{OptionID: conflictTake, Name: "Take the checkpoint", Kind: "allow_once"},
	{OptionID: conflictCancel, Name: "Cancel the rewind", Kind: "reject_always"},
}

// askConflicts shows the files changed since as a card and asks what to
// do with them; anything but an answer (a cancelled turn, a failed
// request) cancels.
func (ss *Session) askConflicts(ctx context.Context, t replayTurn, conflicts []checkpoint.Step) string {
	id := "rewind_" + strings.TrimPrefix(newMessageID(), "msg_")
	_, text := t.userMessage()
	lines := []string{"These files were changed by someone else since the agent left them; rewinding would overwrite them:"}
	var locs []views.Location
	for _, c := range conflicts {
		lines = append(lines, "- "+ss.relPath(c.Path))
		locs = append(locs, views.Location{Path: c.Path})
	}
	title := "Rewind to before " + strconv.Quote(titleOf(text))
	call := views.ToolCallUpdate{SessionUpdate: "tool_call", ToolCallID: id, Title: title, Kind: card.KindEdit, Status: views.Pending,
		Content: []views.ToolCallContent{views.TextItem(strings.Join(lines, "\n"))}, Locations: locs}
	ss.srv.notify(ctx, ss.id, call)
	call.SessionUpdate = ""
	var raw json.RawMessage
	err := ss.srv.conn.Call(ctx, "session/request_permission", map[string]any{"sessionId": ss.id, "toolCall": call, "options": conflictOptions}, &raw)
	choice := conflictCancel
	var resp permissionResponse
	if err == nil && json.Unmarshal(raw, &resp) == nil && resp.Outcome.Outcome == "selected" && ctx.Err() == nil {
		switch resp.Outcome.OptionID {
		case conflictKeep, conflictTake:
			choice = resp.Outcome.OptionID
		}
	}
	status := views.Completed
	if choice == conflictCancel {
		status = views.Failed
	}
	ss.srv.notify(ctx, ss.id, views.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: id, Status: status})
	return choice
}

// relPath is a path as the person reads it: relative to the working
// directory when inside it.
func (ss *Session) relPath(p string) string {
	if rel, err := filepath.Rel(ss.ws.Cwd(), p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// rewindText is what /undo and /rewind say of a rewind.
func (ss *Session) rewindText(label string, r rewindResult) string {
	if r.Cancelled {
		return "Rewind cancelled: nothing was changed."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Rewound to before %s: the conversation continues from there", label)
	list := func(head string, paths []string) {
		if len(paths) == 0 {
			return
		}
		rel := make([]string, len(paths))
		for i, p := range paths {
			rel[i] = ss.relPath(p)
		}
		fmt.Fprintf(&b, "\n%s: %s", head, strings.Join(rel, ", "))
	}
	if len(r.Restored) == 0 {
		b.WriteString("; no file needed restoring.")
	} else {
		b.WriteString(".")
	}
	list("Restored", r.Restored)
	list("Kept as you changed them", r.Kept)
	list("Not restorable (changed by a command; no copy from before)", r.NotRestorable)
	list("Could not be restored", r.Failed)
	return b.String()
}

// undoCommand is /undo: the last turn.
func (ss *Session) undoCommand(ctx context.Context) {
	turns, err := ss.loggedTurns()
	if err != nil {
		ss.say(ctx, "Nothing to undo: "+err.Error())
		return
	}
	for k := len(turns) - 1; k >= 0; k-- {
		if id, text := turns[k].userMessage(); id != "" {
			ss.say(ctx, ss.rewindText(strconv.Quote(titleOf(text)), ss.rewindTo(ctx, turns, k)))
			return
		}
	}
	ss.say(ctx, "Nothing to undo: no turn yet.")
}

// rewindCommand is /rewind: with no argument it lists the turns, with a
// number from that list (or a message id) it rewinds to before it.
func (ss *Session) rewindCommand(ctx context.Context, arg string) {
	turns, err := ss.loggedTurns()
	if err != nil {
		ss.say(ctx, "Nothing to rewind: "+err.Error())
		return
	}
	var listed []int // turn indexes, in the list's order
	for k, t := range turns {
		if id, _ := t.userMessage(); id != "" {
			listed = append(listed, k)
		}
	}
	if len(listed) == 0 {
		ss.say(ctx, "Nothing to rewind: no turn yet.")
		return
	}
	if arg == "" {
		lines := []string{"Turns (rewind to before one with /rewind N):"}
		for n, k := range listed {
			_, text := turns[k].userMessage()
			files := len(turns[k].changes)
			lines = append(lines, fmt.Sprintf("%d. %s — %d file change(s)", n+1, titleOf(text), files))
		}
		ss.say(ctx, strings.Join(lines, "\n"))
		return
	}
	k := -1
	if n, err := strconv.Atoi(arg); err == nil && n >= 1 && n <= len(listed) {
		k = listed[n-1]
	} else {
		k = turnOf(turns, arg)
	}
	if k < 0 {
		ss.say(ctx, fmt.Sprintf("No turn %q; /rewind lists them.", arg))
		return
	}
	_, text := turns[k].userMessage()
	ss.say(ctx, ss.rewindText(strconv.Quote(titleOf(text)), ss.rewindTo(ctx, turns, k)))
}
