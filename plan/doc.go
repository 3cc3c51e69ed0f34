// Package plan is the agent's plan: the todo_write tool, whose arguments
// are the whole list of the work's items each time it is called, and
// [Parse], which reads that list back from a call's arguments. The tool
// itself changes nothing; the bridge turns each successful call into the
// session's plan update, live and when a session log is replayed (the
// call's arguments are the plan, so the log keeps it).
package plan
