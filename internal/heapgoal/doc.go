// Package heapgoal bounds the collector's headroom over the bridge's
// sessions' histories. With GOGC=100 the heap may grow to twice what is
// live, so a history, which only grows, costs its size twice in memory. A
// [Tuner] sets GOGC so that the headroom is all of the rest of the live
// heap, as before (what the collector scans: collecting more often would
// cost a scan of it each time), but only a sixteenth of the histories, and
// at least 2 MiB: a long session then grows by its history, not twice its
// history. A history is text and encodings, which hold no pointers: the
// more frequent collections mark them and scan nothing.
package heapgoal
