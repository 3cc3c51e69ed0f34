package model

import "sync"

// History is a session's conversation after the system prompt: messages
// that only grow at the end, or are replaced whole (a compaction, a
// restored log). It keeps, as messages come, what each request needs of
// them: their summed size estimate (Bytes) and their wire encodings, so
// that sizing and writing a request over a long history costs the new
// messages, not the whole history again (a 500-read turn holds some
// 1,500 messages, walked twice per request before).
//
// Its messages are never changed in place, and the encodings live in the
// History, not in the messages: a slice Messages returned stays valid and
// unchanged, and a History may be read (Footprint, Bytes, Messages) by one
// goroutine while a request over it is written by another. The zero value
// is an empty History. A History must not be copied after first use.
type History struct {
	mu    sync.Mutex
	msgs  []Message
	bytes int // the sum of MessageBytes over msgs

	// wires[i] is msgs[i]'s encoding in dialect d after a comma (wireOf);
	// len(wires) <= len(msgs): the rest are encoded by the next request.
	d         dialect
	wires     [][]byte
	wireLen   int // the sum of len over wires: their share of a request
	wireBytes int // the sum of cap over wires: their share of memory
}

// Append adds msgs at the end.
func (h *History) Append(msgs ...Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, msgs...)
	for i := range msgs {
		h.bytes += MessageBytes(&msgs[i])
	}
}

// Replace makes msgs the whole history (the History keeps msgs and never
// changes its elements; its appends never write into msgs' spare
// capacity). The encodings are dropped: the next request encodes every
// message again.
func (h *History) Replace(msgs []Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs, h.bytes = msgs[:len(msgs):len(msgs)], HistoryBytes(msgs)
	h.dropWires()
}

// dropWires forgets every encoding.
func (h *History) dropWires() {
	clear(h.wires) // let the old encodings go
	h.wires, h.wireLen, h.wireBytes = h.wires[:0], 0, 0
}

// Messages returns the messages. The caller must not change the
// elements; appending to the slice copies it (its capacity is its
// length).
func (h *History) Messages() []Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.msgs[:len(h.msgs):len(h.msgs)]
}

// Len is how many messages the history holds.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.msgs)
}

// Bytes is HistoryBytes of the messages, kept as they come.
func (h *History) Bytes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// Footprint is the bytes the history holds: Footprint of its messages'
// text and the encodings cached for the requests.
func (h *History) Footprint() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Footprint(h.msgs) + h.wireBytes
}

// parts returns head and every message's encoding in dialect d after it,
// with room for one more part, encoding the messages not encoded yet (all
// of them when the dialect changed), and the encodings' size.
func (h *History) parts(head []byte, d dialect) ([][]byte, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d != h.d {
		h.d = d
		h.dropWires()
	}
	for i := len(h.wires); i < len(h.msgs); i++ {
		w := wireOf(&h.msgs[i], d)
		h.wires = append(h.wires, w)
		h.wireLen += len(w)
		h.wireBytes += cap(w)
	}
	parts := make([][]byte, 0, len(h.wires)+2)
	return append(append(parts, head), h.wires...), h.wireLen
}
