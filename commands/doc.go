// Package commands is a session's slash commands: the built-in ones and
// the custom ones people write as Markdown files.
//
// A custom command is a file NAME.md in the user's configuration folder
// (commands/NAME.md) or, for a trusted workspace only, in a root's
// .dsh/commands/. Its text is the prompt the command sends, with every
// $ARGUMENTS replaced by what followed the command's name; a text without
// $ARGUMENTS gets the arguments appended on a line of their own. An
// optional front matter (a first line "---", "key: value" lines, a line
// "---") gives its description and argument-hint. A workspace's command
// takes the place of the user's of the same name; no custom command
// takes the place of a built-in one.
//
// Workspace files are read through the workspace's rules: the path is
// resolved, a file that resolves outside the workspace is not read (a
// symlink out of it is not followed), a path the rules deny is never
// opened. A file larger than [MaxBytes] is not loaded, and neither is a
// name that is not a command name ([ValidName]); each is reported.
//
// [LoadDocs] is that loading for any folder of such files: package
// subagent reads its custom agents (agents/NAME.md) through it, with the
// same trust and the same rules.
package commands
