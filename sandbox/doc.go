// Package sandbox runs commands under a Landlock ruleset (Linux): reads
// everywhere except denied trees, writes only in the directories a
// [Profile] names, and, with Landlock ABI 4 or later, no TCP unless the
// profile allows the network.
//
// Landlock restricts the calling process and its children, so dsh-bridge
// never restricts itself: it re-executes its own binary as a helper
// ([Main], reached through the argument [HelperArg]) that applies the
// ruleset, sets no-new-privileges, and then execs the command.
//
// Around the ruleset, in the helper:
//   - a user and mount namespace of its own, where it masks denied trees
//     and the places of other programs' sockets ([Profile.Hidden]), and
//     binds the workspace's files that run code later read-only, pinning
//     the folders above them ([Profile.Kept]; keep.go);
//   - a seccomp filter (seccomp.go): without the network no connect(2)
//     and no socket but UNIX and netlink; never io_uring or TIOCSTI;
//   - a session of its own, so the command has no controlling terminal.
package sandbox
