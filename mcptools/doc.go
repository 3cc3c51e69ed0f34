// Package mcptools connects the MCP servers a session is given (by the
// editor in session/new or session/load, or by the settings files) and
// offers their tools as raw tools in the session's registry scope, never
// the global one.
//
// It speaks MCP only through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): stdio servers run under
// dsh-bridge's supervisor (so none outlives it), streamable HTTP and SSE
// servers are reached with the headers given. Servers start in parallel
// with a start timeout; one that fails is reported and the session works
// without it. A server that exits mid-session is marked unavailable — its
// tools fail with a clear error — and restarted with backoff.
//
// Tools are named mcp__<server>__<tool>, reduced to the 64-character
// [A-Za-z0-9_-] rule with a stable, collision-free mapping. Their input
// schema reaches the model as given; when it fits the registry's enforced
// subset (after dropping keywords that only narrow it further) the
// arguments are checked before any policy (INVALID_ARGS), otherwise the
// server validates them. MCP annotations set the permission effect only
// for a server trusted for them (Server.TrustAnnotations, which only the
// user's own settings grant): readOnlyHint is a read, destructiveHint
// false an edit, anything else the most careful class. Every tool of any
// other server is the most careful class.
package mcptools
