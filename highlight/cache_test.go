package highlight

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

func TestCache(t *testing.T) {
	ts := TokenLines{
		{{0, 7, "KeywordNamespace"}, {8, 12, "NameOther"}},
		nil,
		{},
		{{0, 1, "Punctuation"}, {1, 70000, "LiteralString"}},
	}
	t.Run("what goes in comes out", func(t *testing.T) {
		c := newCache(1 << 20)
		c.put("k", ts)
		got, ok := c.get("k")
		if !ok || !reflect.DeepEqual(got, ts) {
			t.Fatalf("get = %#v, %v; want %#v", got, ok, ts)
		}
		if got[1] != nil || got[2] == nil {
			t.Errorf("a line without spans and an empty one are told apart: %#v", got)
		}
		got[0][0].Type = "changed"
		if again, _ := c.get("k"); again[0][0].Type != "KeywordNamespace" {
			t.Error("a caller's change reached the cache")
		}
	})
	t.Run("the least recently used goes first", func(t *testing.T) {
		one := TokenLines{{{0, 1, "Keyword"}}}
		c := newCache(3 * (int(unsafe.Sizeof(packedSpan{})) + 4 + 1 + 64)) // three one-span entries
		for i := range 3 {
			c.put(fmt.Sprint(i), one)
		}
		c.get("0") // 1 is now the oldest
		c.put("3", one)
		for k, want := range map[string]bool{"0": true, "1": false, "2": true, "3": true} {
			if _, ok := c.get(k); ok != want {
				t.Errorf("%s cached: %v, want %v", k, ok, want)
			}
		}
		if c.used > c.budget {
			t.Errorf("used %d of %d", c.used, c.budget)
		}
	})
	t.Run("what cannot be packed is not cached", func(t *testing.T) {
		for name, bad := range map[string]TokenLines{
			"a span that ends before it starts": {{{5, 2, "Keyword"}}},
			"a negative start":                  {{{-1, 2, "Keyword"}}},
			"more than the budget":              make(TokenLines, 1<<16),
		} {
			c := newCache(1 << 16)
			c.put("k", bad)
			if _, ok := c.get("k"); ok {
				t.Errorf("%s: cached", name)
			}
		}
	})
	t.Run("a helper that makes up types fills the table, not the cache", func(t *testing.T) {
		c := newCache(64 << 20)
		for i := range maxTypes + 10 {
			c.put(fmt.Sprint(i), TokenLines{{{0, 1, fmt.Sprint("Type", i)}}})
		}
		if len(c.types.names) != maxTypes {
			t.Errorf("%d type names, want %d at most", len(c.types.names), maxTypes)
		}
		if _, ok := c.get(fmt.Sprint(maxTypes + 5)); ok {
			t.Error("an entry with a type past the table was cached")
		}
		if got, ok := c.get("7"); !ok || got[0][0].Type != "Type7" {
			t.Errorf("an early entry: %v %v", got, ok)
		}
	})
}
