// Package secrets keeps dsh-bridge's API keys, and the values of the
// variables settings scrub, out of every place the agent reaches.
//
//   - [Env] is an environment without them: what every process the bridge
//     starts gets (commands, MCP servers, language servers, its own
//     helpers), so none can read them in its own environment or in the
//     /proc/<pid>/environ of another such process.
//   - [HideProcess] blanks the bridge's own exec-time blocks (on Linux
//     /proc/<pid>/environ and the arguments of /proc/<pid>/cmdline, which
//     os.Unsetenv never changes): no process of the person's, sandboxed or
//     not, reads the key there. Elsewhere it does nothing (see ROUGH_EDGES.md).
//   - [Remember] records values that must never leave, and [Redact] /
//     [RedactJSON] replace each of them with "[redacted]" in what goes to
//     the model, the session log and the editor: a defence in depth for a
//     value that reached a tool's output some other way.
//
// Values shorter than [MinLen] bytes are kept out of environments but not
// redacted: replacing every "1" or "true" in every output would wreck it.
package secrets
