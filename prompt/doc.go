// Package prompt renders the system prompt of a session from a template
// (system.tmpl, text/template) and a [Data] of what the session is: who
// the agent is and how it works, the environment (platform, shell,
// workspace roots, git branch, date), the sandbox and permission state in
// a sentence, each tool's when-to-use line, the instructions files, and
// the client's own system prompt.
//
// Render is a pure function of its Data, and the order of its sections
// is fixed, with nothing that changes from one request to the next: a
// session computes its Data when it opens, so that every request of it
// starts with the same bytes and the model's prefix cache keeps hitting.
// Instructions found later (nested AGENTS.md files) reach the model with
// the tool result that found them, never through the system prompt.
package prompt
