// Package workspace resolves and judges paths: where a session's files
// are (a [Workspace]: the working directory and its additional
// directories), what a path really names once every symlink and ".." is
// taken ([Resolve], [Workspace.ResolveAsWritten]), and how a file is
// opened or written so that what a judgement saw is what is touched —
// a file opened and named by the kernel before it is judged
// ([OpenJudged], [Pin] for a reader elsewhere), a write through the
// directory judged ([WriteFile]), a call held to the paths its permission
// decision judged ([Judged], [Holds]). The files no tool ever reads, a
// process's secrets, are refused here ([ProcessSecret]).
//
// Paths differ by platform, and the decisions that depend on it are pure
// functions of the platform (a GOOS value), tested on every platform:
// whether a file system folds case ([FoldsCase]; a [Workspace] takes
// runtime.GOOS, or a platform named with [NewOn]), the case fold rules
// are compared under ([Fold], [Within]), and the one form of a Windows
// path, whether written with drive letters, UNC or \\?\ prefixes, / or \
// ([Slash]; [WinUnjudged] names the spellings no rule can settle).
//
// Package tools and package permission both judge paths through it;
// its refusals are errors marked [ErrDenied] and [ErrNotRegular], which
// tools turns into the tool errors the contract names.
package workspace
