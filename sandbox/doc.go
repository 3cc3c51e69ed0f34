// Package sandbox runs commands under a Landlock ruleset (Linux): reads
// everywhere except denied trees, writes only in the directories a
// [Profile] names, and, with Landlock ABI 4 or later, no TCP unless the
// profile allows the network.
//
// Landlock restricts the calling process and its children, so dsh-bridge
// never restricts itself: it re-executes its own binary as a helper
// ([Main], reached through the argument [HelperArg]) that applies the
// ruleset, sets no-new-privileges, and then execs the command.
package sandbox
