// Package bufpool lends byte buffers to code that encodes one line at a
// time (the ACP stream's updates, the session logs' events). A read card's
// update can be hundreds of KB; growing a fresh buffer for each one would
// cost copies and collections.
package bufpool

import "sync"

// MaxKept bounds the buffers taken back: a rare huge line's buffer is left
// to the collector rather than held.
const MaxKept = 4 << 20

var pool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// Get returns an empty buffer. The caller may append to *b (storing the
// grown slice back in *b) and must hand it back with Put once nothing
// refers to its bytes any more.
func Get() *[]byte {
	b := pool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// Put takes a buffer back for reuse, unless it grew past MaxKept.
func Put(b *[]byte) {
	if cap(*b) <= MaxKept {
		pool.Put(b)
	}
}
