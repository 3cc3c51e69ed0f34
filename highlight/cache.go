package highlight

import (
	"container/list"
	"sync"
)

// cache keeps recent tokenizations (a re-read of the same window, a
// session replay), least recently used first out, within a byte budget.
type cache struct {
	mu     sync.Mutex
	budget int
	used   int
	order  *list.List // of *entry, most recent at the front
	m      map[string]*list.Element
}

type entry struct {
	key    string
	tokens TokenLines
	size   int
}

func newCache(budget int) *cache {
	return &cache{budget: budget, order: list.New(), m: map[string]*list.Element{}}
}

func (c *cache) get(k string) (TokenLines, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*entry).tokens, true
}

// put stores the tokens unless they alone exceed the budget, evicting the
// least recently used entries to make room.
func (c *cache) put(k string, ts TokenLines) {
	size := ts.size() + len(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.budget {
		return
	}
	if e, ok := c.m[k]; ok {
		c.used -= e.Value.(*entry).size
		c.order.Remove(e)
		delete(c.m, k)
	}
	for c.used+size > c.budget {
		last := c.order.Back()
		old := last.Value.(*entry)
		c.order.Remove(last)
		delete(c.m, old.key)
		c.used -= old.size
	}
	c.m[k] = c.order.PushFront(&entry{key: k, tokens: ts, size: size})
	c.used += size
}
