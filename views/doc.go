// Package views projects cards (package card) into ACP v1 tool call
// updates, and carries our rich payload under `_meta.dsh`. It knows cards,
// not tools: a call's cards come from the registry's Presenter.
//
// [Call], [Result] and [Permission] are pure functions from a card, a
// status and an [Env] (workspace and client capabilities) to the
// `tool_call`, the final `tool_call_update`, and the toolCall of a
// session/request_permission. Every card kind is mapped:
//
//   - generic: title (relativized), kind, rawInput, content, locations;
//   - diff: one {type: diff} item per file with absolute paths, oldText null
//     for a new file; the same items go into the permission request;
//   - terminal: Zed's `_meta.terminal_info` / `terminal_output` /
//     `terminal_exit` convention when the client advertised
//     `_meta.terminal_output` (and then no content on the final update, which
//     would replace the terminal), a {type: terminal} item when the command
//     runs in the editor's own terminal, else a fenced console block with
//     the output and its exit code or signal;
//   - read: a fenced code block in the file's language with the file's own
//     line numbers, and one location {path, line: offset};
//   - search: grouped `Line N: text` rows or a path list, stating
//     truncation and totals, with no locations;
//   - web: the sources as a list, or the URL and status.
//
// Every update also carries `_meta.dsh` ([DshMeta], documented in
// docs/meta-dsh.md): the card itself, unified hunks and LSP text edits for
// diffs ([Change], computed with go-diff in line mode), syntax spans in
// UTF-16 code units for reads and run_code programs (from [Env.Tokenizer],
// in the bridge package highlight's client: Go made in the process, other
// languages by the dsh-highlight helper; a read's
// spans follow its result in their own update, [ReadTokens], and a
// program's its pending card, [ProgramTokens]), and output
// and exit status for terminals. [ANSI] renders a read card for terminal
// clients;
// [ApplyHunks] and [ApplyEdits] apply a change, for clients written in Go.
package views
