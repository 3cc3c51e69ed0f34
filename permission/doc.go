// Package permission decides what a session's tool calls may do: the
// permission rules of the user's and the workspace's settings, shell-aware
// command matching, paths judged after symlinks are resolved (and
// case-folded where the platform's file systems fold case: a rule on
// secrets/** holds for Secrets/KEY on macOS and Windows), trust,
// protected files, and the profile of the kernel sandbox commands run in.
// It speaks no ACP: the bridge wires a [Policy] to sessions and prompts,
// and the tools' Host enforces what it decides where files are opened.
//
// Order of judgement, for every call: deny (rules, remembered rejections,
// plan mode) is decided before anyone is asked; then escalations, which
// always ask; then, unless the mode is bypassPermissions, ask rules,
// workspace bounds and protected files (which always ask), allow rules,
// remembered "always allow" answers, and the mode's default.
package permission
