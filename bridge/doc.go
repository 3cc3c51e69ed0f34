// Package bridge is dsh-bridge's ACP agent side: the method handlers,
// sessions with their modes, the agent loop, and the permission broker.
//
// # Transport
//
// The connection is package acp's: it reads the client's messages, runs
// the method table (server.go) of thin typed handlers (handlers.go and
// the files of each concern), and writes what the bridge says. Handlers
// return wrapped sentinels (ErrSessionNotFound, ErrBusy,
// acp.ErrInvalidParams); acp converts them to wire codes when it answers.
// A session/load or session/resume is marked on the read loop, in arrival
// order, so that requests for its session behind it wait for it.
//
// # Modes and permissions
//
// Modes are pipeline policies on the session's scope, not special cases in
// tools: default (reads and searches inside the workspace run; edits,
// commands, fetches and anything outside the workspace ask), acceptEdits
// (edits inside the workspace run too), plan (a guard refuses edits and
// commands without asking) and bypassPermissions (nothing asks; guards
// still refuse). An ask becomes session/request_permission with the same
// toolCallId as the announced tool_call and its card content. A proposal
// (an edit's or a write's pending diff of the file) may be approved in
// part: the answer's _meta.dsh.hunks grants the tool those hunks alone
// (docs/meta-dsh.md, partialApproval), and remembers nothing.
//
// The session remembers "always allow" and "always reject" itself, since
// many clients do not: the key is the tool's permission key — edits by tool
// name (write, edit), bash by the command's program name (bash:git), web
// fetches by host (web_fetch:example.com), other tools by name — and an
// always-allow never covers a call that reaches outside the workspace.
//
// Permission rules from .dsh/settings.json and the user's settings come
// first: deny rules are guards (they hold in every mode, bypassPermissions
// included), ask and allow rules a pre-execute listener ahead of the mode
// policy. A malformed settings file is ignored whole and reported as a
// notice.
//
// # Durable sessions
//
// With a state directory, every session writes a log (package store) as its
// turns go: the user's messages, the assistant's text, reasoning and tool
// calls, and each call's durable result. The log is fsynced at turn ends and
// before permission requests. session/load replays the complete turns as
// session/updates — cards recomputed through the presenters from the durable
// fields — and restores the model history and mode; a turn cut off by a
// crash is voided. A card's toolCallId is unique in the session: the
// model's call id, or, when the model reused it (call_0 in every answer)
// or named it as the session names a child's call or a Code Mode sub-call
// (<task>:task:<n>, <run_code>:code:<n>, which the session reserves),
// "<id>~<n>" (cardids.go); the history keeps the model's ids, the log
// both, so a load shows the same cards. session/list, session/close and session/delete (a
// live session ended first, then its log and title file removed) complete
// the set. session/fork copies a log's history into a new session (whole,
// or up to and including a messageId: fork.go); it never touches files.
//
// # Subagents
//
// The task tool is package subagent's; the session is its Observer
// (subagents.go): each child's call is a card nested under the task's,
// its scope maps to the session for approvals, its usage counts in the
// session's cost, its calls are logged with the task's result (replayed
// on load), and a client that advertises clientCapabilities.subagents
// gets subagent_update and sees each child as a session of its own: the
// child's cards, plans, permission requests and answer carry the child's
// sessionId instead of nesting under the task card on the parent (live
// and on load alike), and it may session/cancel a child by its id. That
// cancel reaches a running child of a session open on this connection
// only (a Server is one connection's): not another connection's, and not
// one whose parent was closed or deleted, whose close ends it. A logged
// child is replayed checked: a stop reason ACP does not allow is the
// unknown state (subagent.Replayed).
//
// # Titles, usage and questions
//
// A session's first prompt gives it a provisional title; once the first
// turn's model work is done, one cheap request names it, and the title is
// logged and sent as session_info_update inside that turn (title.go). A
// turn's answer carries its usage (turnUsage). ask_user's questions reach
// the person as a form elicitation or, without one, a permission request
// with the choices as options (ask.go, package ask).
package bridge
