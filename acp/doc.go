// Package acp is dsh-bridge's transport: one ACP connection over a
// newline-delimited JSON-RPC 2.0 stream (stdio), owning every byte in and
// out. sourcegraph/jsonrpc2 frames and dispatches what the editor sends;
// what the agent writes (answers, notifications, its own calls to the
// editor) the connection writes itself, each message in one pass, through
// one batching writer (package internal/batchwrite) that a message never
// waits in while the agent waits on something else.
//
// A malformed line is answered with -32700 (or -32600 for a batch or
// non-object) and the connection stays up. The read loop never blocks and
// never calls the editor: notifications are served inline, in arrival
// order, as are inline methods (Inline); every other request on a
// goroutine of its own, whose context $/cancel_request cancels. The
// editor's answers to the agent's calls (Call) are taken off the stream
// before jsonrpc2 sees them, each parsed once: a read through the editor
// is a file's whole text.
//
// Handlers are typed (Handle): each receives its params decoded and
// returns its result, or an error the connection converts to a wire code
// once, when it answers (a wrapped CodedError or *Error; never code 0,
// anything else -32603). A handler panic is answered with -32603. Work a
// handler has to do once its answer is out (AfterReply) runs before any
// message written after it, so every session/update a turn sends is
// written before that turn's answer.
package acp
