// Package tools holds the built-in tools: read, write, edit, bash (with
// background jobs: job_output, job_list, job_kill), grep, glob and
// web_fetch, with the contract's parameter names, model-facing text,
// canonical values, caps, error codes, cards and concurrency classes.
//
// Every tool does its I/O through a [Host]: [LocalHost] (the disk and child
// processes) or the editor's file system and terminals (provided by the
// bridge), so unsaved buffers are what tools read and editor reviews see
// what tools write. Paths are resolved and judged by package workspace,
// against the session's [workspace.Workspace]; the host a tool runs on
// holds it to the permission rules ([PathRules]) on the file it really
// opens or writes. Every tool declares the paths a call touches
// (registry.Tool.Accesses), which the permission policy judges in
// pre-execute, before anything happens: not even a directory is created
// before the approval.
//
// bash runs scripts through bash -c (sh -c without bash) in a new process
// group; cancellation, timeouts and the end of the command kill the whole
// group, so nothing is left running. grep and glob use ripgrep when it is on
// PATH and a native walker otherwise, with the same result shapes; on a
// host with a sandbox ripgrep runs confined to reading, the denied trees
// refused (searchJail).
//
// With a [Checker] (the session's language servers, package lsp), edit
// and write wait, bounded, for the changed file's diagnostics and add its
// errors and warnings, and the new ones of the files that import it, to
// their result and their diff card; every diagnostic shown (there, and
// by the diagnostics tool) is of a file read may show without asking,
// judged as read judges it (a server names any file it likes); read lets the
// file's server start; bash sends the servers the open files it changed;
// and two more read-only tools are registered: diagnostics and lsp
// (definition, references, hover, document and workspace symbols).
//
// A partial approval ([HunkSelection], in the call's context) makes edit
// and write apply only the hunks the person accepted of the change their
// pending card proposed, to the file as it is then, and tell the model
// which hunks were rejected.
//
// Parallel-safe: read and web_fetch. Everything else is exclusive.
package tools
