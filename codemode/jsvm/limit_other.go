//go:build !linux

package jsvm

import "io"

// limitData does nothing here: the memory cap reads Linux's
// /proc/self/status, and macOS does not enforce RLIMIT_DATA. A run's
// memory is bounded by the heap guard's sampling alone.
func limitData(io.ReaderAt, uint64) error { return nil }
