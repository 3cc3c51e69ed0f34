package subagent

// The ACP subagent_update session update, for clients that advertise
// clientCapabilities.subagents. Shapes from the Rust SDK's v1 schema
// (docs.rs, agent-client-protocol 5.0.0 and 5.5.1: v1::SubagentUpdate,
// v1::StateUpdate, v1::IdleStateUpdate, v1::IdleStopReason; 5.6.1's
// tests/schema_subagents.rs for the envelope; v2 3.3.0 ErrorStopReason),
// read 2026-12-07; the issue dates the stabilisation to November 2026.
// SubagentUpdate: sessionId required, title, description, state (and
// capabilities, cwd, additionalDirectories, _meta, which we do not send)
// with patch semantics; sent on the parent session, the first one before
// anything naming the child. StateUpdate: a whole snapshot tagged by
// "state" (running, idle, requires_action, unknown); an idle one carries
// the IdleStopReason flattened in, tagged by "stopReason" (end_turn,
// max_tokens, max_turn_requests, refusal, cancelled, error), an error one
// with a JSON-RPC error object. The "state" tag's name is not spelled out
// in those pages; it follows the IdleStopReason's own flattening. The
// schema we hold it to is bridge/testdata/subagent-update.schema.json.

// Update is one subagent_update.
type Update struct {
	SessionUpdate string `json:"sessionUpdate"` // "subagent_update"
	SessionID     string `json:"sessionId"`
	Title         string `json:"title,omitempty"`
	Description   string `json:"description,omitempty"`
	State         *State `json:"state,omitempty"`
}

// State is a StateUpdate snapshot.
type State struct {
	State      string       `json:"state"`                // running or idle
	StopReason string       `json:"stopReason,omitempty"` // idle only
	Error      *ErrorObject `json:"error,omitempty"`      // stopReason error only
}

// ErrorObject is the JSON-RPC error object of an error stop.
type ErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// internalError is JSON-RPC's internal error code.
const internalError = -32603

// Announce is the first update of c: its title and the agent, running.
func Announce(c *Child) Update {
	return Update{SessionUpdate: "subagent_update", SessionID: c.SessionID, Title: c.Title,
		Description: c.Agent.Name + " agent", State: &State{State: "running"}}
}

// Ended is the last update of a child that ended with o.
func Ended(sessionID string, o Outcome) Update {
	st := &State{State: "idle", StopReason: o.Stop}
	if o.Stop == StopError {
		msg := "the subagent failed"
		if o.Err != nil {
			msg = o.Err.Error()
		}
		st.Error = &ErrorObject{Code: internalError, Message: msg}
	}
	return Update{SessionUpdate: "subagent_update", SessionID: sessionID, State: st}
}

// stops are the stop reasons ACP's IdleStopReason allows.
var stops = map[string]bool{StopEndTurn: true, StopMaxTokens: true, StopMaxReqs: true, StopRefusal: true, StopCancelled: true, StopError: true}

// Replayed is the one update of a logged child, shown on load: its whole
// state at once, ended. The log is read as input, not trusted: a stop
// reason ACP does not allow (a forged or corrupt log; or none, a child
// the bridge was stopped under) is the "unknown" state, title and agent
// are cut to titles, and a child without a session id is no update
// (false).
func Replayed(sessionID, title, agent, stop string) (Update, bool) {
	if sessionID == "" {
		return Update{}, false
	}
	u := Ended(sessionID, Outcome{Stop: stop})
	if !stops[stop] {
		u.State = &State{State: "unknown"}
	}
	u.Title, u.Description = Title(title), Title(agent)+" agent"
	return u, true
}
