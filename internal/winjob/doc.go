// Package winjob runs a command in a Windows Job Object whose last handle,
// when closed, ends every process in it (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE):
// the command, everything it starts, and everything those start. The
// handle belongs to the process that made the job and is never inherited,
// so closing the job, or the end of that process however it ends (a kill
// included), ends the command's whole tree.
//
// The command starts suspended and is resumed only once it is in the job:
// nothing it starts can run outside it.
//
// The package is empty on other systems.
package winjob
