// Package subagent is the task tool: a child session with its own
// history, running in a child scope of its parent session's registry
// scope, whose final answer is the task's result.
//
// # Scopes
//
// A child's scope is a registry scope under its parent's (the seed's
// scopes: inherit, restrict, guard). It inherits the parent's tools,
// filtered by its agent's restriction ([Agent.Restriction]): an allow
// list of the agent's tools, or, for general, a deny of task itself. The
// registry intersects that with every restriction up the chain, so a
// child never sees a tool its parent does not. A guard on the child's
// scope refuses any call of a tool the child does not see (with the list
// of those it does): a model that calls edit from an explore child gets a
// refusal it can read. Events flow up the chain: the parent session's
// pre-execute listener, its guards (deny rules, plan mode) and its
// wrappers see every call of its children, through the same pipeline,
// approvals and sandbox as its own. Children do not nest: task is hidden
// from every child, and a call from a scope other than the session's is
// refused ([ErrNested]).
//
// # Agents
//
// general (the parent's tools less task) and explore (read, grep, glob,
// web_fetch) are built in; custom agents are Markdown files (agents/NAME.md
// in the user's configuration folder, and in a trusted workspace's .dsh/)
// read as custom commands are (commands.LoadDocs): front matter
// description, tools, model and thinking; the body is the agent's prompt.
//
// # The child's life
//
// [Tool]'s body runs the child's agent loop ([Child]) on the task call's
// context: cancelling the parent's turn cancels every child, and
// [Child.Cancel] cancels one alone. A child's failure — its model failed,
// it was cancelled alone, it hit the request cap — is a failed task
// result, never a failed parent turn. The [Observer] (the session) hears
// every step: each child call is announced with the editor's id
// <task id>:task:<n>, n counting the child's calls, so that a model that
// gives two calls one id (in one answer or two) gets two cards; its card
// nests under the task's. The model's description is shown as a
// [Title]: one line of at most [MaxTitle] runes. The session
// logs them with the task's result and replays them on load. [Update] is
// ACP's subagent_update for clients that advertise subagents;
// [Replayed] is a logged child's, its stop reason checked against ACP's.
package subagent
