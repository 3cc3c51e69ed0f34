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
// Package tools and package permission both judge paths through it;
// its refusals are errors marked [ErrDenied] and [ErrNotRegular], which
// tools turns into the tool errors the contract names.
package workspace
