package tools

import (
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// BashOutputCap is how many bytes of each output stream a foreground
// command returns; beyond it the stream is truncated and the whole of it
// goes to a spill file the model can read.
const BashOutputCap = 30 * 1024

// spillCap bounds a spill file.
const spillCap = 64 << 20

// collector gathers one stream: the first BashOutputCap bytes in memory,
// and, once the stream overflows, the whole stream in a spill file.
type collector struct {
	spills    *spillSet // owns the spill file (nil: nobody deletes it)
	mu        sync.Mutex
	head      []byte
	total     int
	spill     *os.File
	spilled   int
	spillPath string
	spillErr  bool
}

func (c *collector) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += n
	inHead := min(max(0, BashOutputCap-len(c.head)), n)
	c.head = append(c.head, p[:inHead]...)
	rest := p[inHead:]
	if len(rest) == 0 {
		return n, nil
	}
	if c.spill == nil && !c.spillErr {
		f, path, err := c.spills.create()
		if err != nil {
			c.spillErr = true
			return n, nil
		}
		c.spill, c.spillPath = f, path
		_, _ = f.Write(c.head)
		c.spilled = len(c.head)
	}
	if c.spill != nil && c.spilled < spillCap {
		w := rest[:min(len(rest), spillCap-c.spilled)]
		_, _ = c.spill.Write(w)
		c.spilled += len(w)
	}
	return n, nil
}

// result returns the collected text (valid UTF-8), whether the stream was
// longer, and the spill path ("" when it could not be written).
func (c *collector) result() (string, bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spill != nil {
		c.spill.Close()
	}
	head := c.head
	truncated := c.total > len(head)
	if truncated {
		for i := 0; i < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); i++ {
			head = head[:len(head)-1] // do not end inside a rune
		}
	}
	return strings.ToValidUTF8(string(head), "\uFFFD"), truncated, c.spillPath
}

// ring keeps the most recent output of a background job, up to ringCap,
// and remembers how much was dropped from the front.
type ring struct {
	mu      sync.Mutex
	buf     []byte
	dropped int           // bytes dropped from the front
	changed chan struct{} // closed (and replaced) on every write
}

const ringCap = 1 << 20

func newRing() *ring { return &ring{changed: make(chan struct{})} }

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if over := len(r.buf) - ringCap; over > 0 {
		r.buf = append([]byte(nil), r.buf[over:]...)
		r.dropped += over
	}
	close(r.changed)
	r.changed = make(chan struct{})
	return len(p), nil
}

// since returns the output after absolute offset off, the new offset,
// whether some of it was dropped before it could be read, and a channel
// closed at the next write.
func (r *ring) since(off int) (text string, next int, lost bool, changed <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lost = off < r.dropped
	start := max(off, r.dropped) - r.dropped
	return strings.ToValidUTF8(string(r.buf[start:]), "\uFFFD"), r.dropped + len(r.buf), lost, r.changed
}
