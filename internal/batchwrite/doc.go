// Package batchwrite queues writes to one io.Writer from any number of
// goroutines and writes them, in order, from a goroutine of its own, so
// that what several goroutines said in one stretch of work reaches the
// reader in one write: the bridge's JSON-RPC lines to the editor, and its
// requests to the dsh-highlight helper. Each write to a pipe wakes the
// process at the other end; on a paravirtualized VM a wake-up costs more
// than the work between two of them.
package batchwrite
