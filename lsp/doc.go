// Package lsp is dsh-bridge's client of language servers: it starts
// them, keeps them told of the files the agent reads and changes, and
// collects the diagnostics they publish, so that a tool can add a file's
// errors to its result and answer questions about symbols.
//
// The wire is LSP's: the types of go.lsp.dev/protocol over
// github.com/sourcegraph/jsonrpc2 with its VSCodeObjectCodec, the
// Content-Length header framing LSP names (the transport acp/ already
// uses that library; go.lsp.dev/jsonrpc2 would add a second JSON-RPC
// stack and zap's logging to the binary for the same framing).
//
// A [Manager] belongs to one session. It starts a server lazily, per
// language, the first time a tool touches a file of that language (a
// read, an edit, a question), never at session start: gopls for Go,
// pyright-langserver --stdio for Python, typescript-language-server
// --stdio for TypeScript and JavaScript, rust-analyzer for Rust and
// clangd for C and C++, found on $PATH ([Builtins]); the user's settings
// add others or turn any off ([ParseSettings]). Servers run through a
// [Launcher]: under dsh-bridge's supervisor (none outlives the bridge,
// however it ends; on Windows, in a kill-on-close Job Object as well)
// and inside the session's sandbox profile when there is one.
//
// Each server gets initialize with the workspace roots; a file the
// agent changes is sent with didOpen (the first time) or didChange (full
// text, the version counting up) and didSave; a file changed by a
// command (re-read by the caller) the same, with
// workspace/didChangeWatchedFiles. [Manager.Changed] waits for the
// file's diagnostics: at most the start bound for the server's initial
// load (initialize answered, then no $/progress open and a quiet
// period), then at most [DefaultWait] for a publication newer than the
// change (of its version, when the server says it) followed by a quiet
// period, and adds the new problems other files (those that import it)
// got meanwhile. No server for a file's language: it returns at once.
//
// A server is an adversary. Its diagnostics are kept only for plain file
// URIs inside the roots, capped in files, per file, in length and in
// bytes (per file and per server), their texts cleaned of control
// characters (the tools judge each path again, as a read). A [Manager.Query]
// answer is its text too: names and paths cleaned to one line and
// capped, a hover cleaned (its lines kept) and capped, the whole answer
// capped; locations that name no local file are left out. Its messages
// are read within bounds (a custom codec: maxMessage, header lines), and
// what they make the client keep or write is bounded too ($/progress
// tokens, workspace/configuration items); any framing or protocol error
// stops the process, which is then restarted as after a crash. Every
// write to it (requests, notifications, the answers to its requests) is
// bounded: a server that stops reading its input is stopped, and
// restarted.
//
// A server that exits is restarted with backoff (MaxRestarts times); a
// program that is missing, a server that does not answer initialize
// within the start bound, or one that keeps crashing is given up and
// reported once. No call waits longer than its bounds, whatever a server
// does.
package lsp
