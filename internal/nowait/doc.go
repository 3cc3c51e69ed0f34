// Package nowait writes to the pipe or stream socket that carries the
// bridge's output (and its requests to its helpers) with a plain write(2)
// the Go runtime does not see, whenever that write cannot block, and
// through the *os.File otherwise; and reads such an input raw, waiting
// for it in the runtime's poller (NewReader).
//
// Every write an *os.File makes goes through the runtime's system call
// bookkeeping, and the first one after the process was idle wakes the
// runtime's monitor thread (sysmon) from its deep sleep: it then polls
// every 20 µs until the process is idle again. The bridge is idle between
// a model's stream events, so each line to the editor paid a wake-up and
// a few more thread switches (perf: 40 % of the bridge's context switches
// on a paced read benchmark were sysmon's).
//
// A raw write skips the bookkeeping, which is sound only for a call that
// cannot block: a thread blocked in a call the runtime does not know of
// cannot be stopped, and the next garbage collection waits for it, so the
// whole process would freeze until the reader read. Hence the two rules:
// a socket send with MSG_DONTWAIT, or a pipe write into an empty pipe of
// at most the pipe's size. A blocking input read the usual way keeps a
// thread in read(2), and each read after a line wakes the monitor again;
// NewReader makes the input non-blocking instead, so that a raw read
// cannot block either, and puts the mode back when asked.
package nowait
