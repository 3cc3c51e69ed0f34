package highlight

import (
	"container/list"
	"sync"
	"unsafe"
)

// cache keeps recent tokenizations (a re-read of the same window, a
// session replay), least recently used first out, within a byte budget.
// It holds them packed, without pointers, so that a full cache (tens of
// MiB) costs the collector almost nothing to scan: the bridge lowers
// GOGC as its live heap grows (heapgoal), and a cache of strings and
// slices per span would make each collection pay for all of it.
type cache struct {
	mu     sync.Mutex
	budget int
	used   int
	order  *list.List // of *entry, most recent at the front
	m      map[string]*list.Element
	types  typeTable
}

type entry struct {
	key   string
	spans []packedSpan // every line's, in order
	ends  []uint32     // ends[i] is the end in spans of line i's
	nils  []uint64     // bit i set: line i had no spans at all (nil)
	size  int
}

// packedSpan is a Span with its type as an index into the cache's table.
type packedSpan struct {
	start, end uint32
	typ        uint16
}

// maxTypes bounds the type table: chroma has about a hundred token types,
// and a helper that made up more gets no caching for them.
const maxTypes = 1 << 12

// typeTable interns token type names.
type typeTable struct {
	names []string
	index map[string]uint16
}

func (t *typeTable) id(name string) (uint16, bool) {
	if i, ok := t.index[name]; ok {
		return i, true
	}
	if len(t.names) >= maxTypes {
		return 0, false
	}
	if t.index == nil {
		t.index = map[string]uint16{}
	}
	i := uint16(len(t.names))
	t.names = append(t.names, name)
	t.index[name] = i
	return i, true
}

func newCache(budget int) *cache {
	return &cache{budget: budget, order: list.New(), m: map[string]*list.Element{}}
}

// get returns a fresh copy of the tokens stored under k.
func (c *cache) get(k string) (TokenLines, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*entry)
	ts := make(TokenLines, len(e.ends))
	spans := make([]Span, len(e.spans))
	for i, p := range e.spans {
		spans[i] = Span{Start: int(p.start), End: int(p.end), Type: c.types.names[p.typ]}
	}
	from := uint32(0)
	for i, end := range e.ends {
		if e.nils[i/64]&(1<<(i%64)) == 0 {
			ts[i] = spans[from:end:end]
		}
		from = end
	}
	return ts, true
}

// put stores the tokens unless they alone exceed the budget (or cannot be
// packed), evicting the least recently used entries to make room.
func (c *cache) put(k string, ts TokenLines) {
	n := 0
	for _, l := range ts {
		n += len(l)
	}
	size := int(unsafe.Sizeof(packedSpan{}))*n + 4*len(ts) + len(ts)/8 + len(k) + 64
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &entry{key: k, spans: make([]packedSpan, 0, n), ends: make([]uint32, len(ts)), nils: make([]uint64, (len(ts)+63)/64), size: size}
	for i, l := range ts {
		if l == nil {
			e.nils[i/64] |= 1 << (i % 64)
		}
		for _, sp := range l {
			typ, ok := c.types.id(sp.Type)
			if !ok || sp.Start < 0 || sp.End < sp.Start || uint64(sp.End) > 1<<32-1 {
				return
			}
			e.spans = append(e.spans, packedSpan{uint32(sp.Start), uint32(sp.End), typ})
		}
		e.ends[i] = uint32(len(e.spans))
	}
	if old, ok := c.m[k]; ok {
		c.used -= old.Value.(*entry).size
		c.order.Remove(old)
		delete(c.m, k)
	}
	for c.used+size > c.budget {
		last := c.order.Back()
		old := last.Value.(*entry)
		c.order.Remove(last)
		delete(c.m, old.key)
		c.used -= old.size
	}
	c.m[k] = c.order.PushFront(e)
	c.used += size
}
