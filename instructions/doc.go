// Package instructions finds and reads the project instructions files a
// session follows: AGENTS.md, or CLAUDE.md where a folder has no
// AGENTS.md, at each workspace root and in every folder from a root down
// to a file the agent touches, and the user's own AGENTS.md in
// dsh-bridge's configuration folder.
//
// Files are read through the workspace's rules: the path is resolved
// (every symlink and ".." taken), a file that resolves outside the
// workspace is not read (a symlink out of it is not followed), a path the
// permission rules deny is never opened, and what was read is dropped when
// the name no longer leads to the file judged (workspace.Pin). Each file
// is capped at [MaxBytes]; past the cap its text is cut at a line end and
// a marker line says how much was left out.
//
// A [Loader] remembers the folders it has looked in, so that each
// folder's file is returned once per session: the root files when the
// session opens, a nested one with the first tool result that touched its
// folder.
package instructions
