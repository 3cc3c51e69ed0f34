// Package wine holds what runs the Windows builds under Wine (Debian's
// wine64 8.0) in make test-wine: prefix.sh makes the prefix, with a
// bcryptprimitives.dll of its own (dll/prng.c) that Go's Windows runtime
// needs; ripgrep.sh puts a real Windows rg.exe beside it; test.sh runs
// packages' Windows test binaries; and this package's one test,
// TestWineSession, drives one ACP session of the Windows dsh-bridge.exe
// over stdio with a scripted model.
//
// TestWineSession runs when DSH_WINE_PREFIX names a prefix made by
// prefix.sh (make test-wine sets it) and is skipped otherwise, so that
// go test ./... needs no Wine; with the variable set, a missing Wine or
// prefix fails it.
//
// What Wine proves: the Windows build starts and speaks ACP over pipes;
// Windows paths (Z:\…, Wine's map of /) are taken as the session's
// workspace and resolved in it; the file layer reads, edits in place
// keeping CRLF; grep walks the tree itself without ripgrep and runs the
// real rg.exe once one is on the PATH; a path outside the workspace
// goes to the permission policy; commands run with cmd.exe; and a Job
// Object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE ends a process a command
// left behind, when the command ends and when the bridge is killed.
//
// What it does not prove: Wine is not Windows. Its Job Objects are
// partial (limits other than kill-on-close, accounting and completion
// ports are not exercised here and are not all implemented); it has no
// junctions or reparse points as NTFS has them, no ACLs, no Credential
// Manager that behaves as Windows' does, no case-insensitive file
// system (Z: is the Linux tree; Wine folds case itself, only for names
// that do not exist as given), no Git for Windows' bash.exe and no
// PowerShell. Those paths are tested as pure functions on Linux, or not
// at all (ROUGH_EDGES.md, "Windows and Wine").
package wine
