package jsonv

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// pairs is a Deferred test type: an array of {"k":…,"n":…} objects that
// counts how often its Value is built.
type pairs struct {
	items  []string
	builds *atomic.Int32
	// broken makes JSONValue break its promise, to test the fallback.
	broken bool
}

func (p pairs) DeferKind() (Kind, bool) {
	if p.items == nil {
		return Invalid, false
	}
	return Array, true
}

func (p pairs) JSONValue() (Value, bool) {
	p.builds.Add(1)
	if p.items == nil {
		return NullValue(), true
	}
	if p.broken {
		return MustString("not an array"), true
	}
	items := make([]Value, len(p.items))
	for i, s := range p.items {
		items[i] = MustObject(Member{"k", MustString(s)}, Member{"n", IntValue(int64(i))})
	}
	return MustArray(items...), true
}

func (p pairs) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	for i, s := range p.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"k":`...)
		dst = AppendString(dst, s)
		dst = append(dst, `,"n":`...)
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

type holder struct {
	Name  string `json:"name"`
	Pairs pairs  `json:"pairs"`
}

func newHolder(items ...string) (holder, *atomic.Int32) {
	n := new(atomic.Int32)
	return holder{Name: "h", Pairs: pairs{items: items, builds: n}}, n
}

func TestDeferred(t *testing.T) {
	t.Run("FromGoOrigin defers; writing, kind and origin build nothing", func(t *testing.T) {
		h, builds := newHolder("a", "b\n\"c\"")
		v, err := FromGoOrigin(h)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := v.Get("pairs") // the holder's own members are not deferred
		if src, ok := p.DeferredOf(); !ok || src.(pairs).items[1] != "b\n\"c\"" {
			t.Fatalf("the member is not deferred: %v %v", src, ok)
		}
		want := `{"name":"h","pairs":[{"k":"a","n":0},{"k":"b\n\"c\"","n":1}]}`
		if got := v.String(); got != want {
			t.Errorf("encoded %s, want %s", got, want)
		}
		if p.Kind() != Array || v.Origin().(holder).Name != "h" {
			t.Error("kind or origin wrong")
		}
		if n := builds.Load(); n != 0 || !p.Waiting() {
			t.Errorf("built %d times by writing it (waiting: %v)", n, p.Waiting())
		}
	})
	t.Run("reading its parts builds it once, and the parts agree with the eager value", func(t *testing.T) {
		h, builds := newHolder("x", "y", "z")
		v, _ := FromGoOrigin(h)
		eager, err := FromGo(h) // FromGo never defers: its result shares nothing with the input
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := eager.Get("pairs"); func() bool { _, ok := p.DeferredOf(); return ok }() {
			t.Fatal("FromGo deferred a part")
		}
		builds.Store(0)
		p, _ := v.Get("pairs")
		if p.Len() != 3 || p.Index(2).String() != `{"k":"z","n":2}` || len(p.Items()) != 3 {
			t.Errorf("parts: len %d, third %s", p.Len(), p.Index(2))
		}
		for i, it := range p.All() {
			if n, _ := it.Get("n"); n.String() != strconv.Itoa(i) {
				t.Errorf("item %d is %s", i, it)
			}
		}
		if !v.Equal(eager) || !eager.Equal(v) {
			t.Error("the deferred value is not Equal to the eager one")
		}
		if p.Waiting() || v.Waiting() {
			t.Error("still waiting after its parts were read")
		}
		if n := builds.Load(); n != 1 {
			t.Errorf("built %d times, want 1", n)
		}
	})
	t.Run("an object deferred", func(t *testing.T) {
		n := new(atomic.Int32)
		d, ok := newDeferred(objDeferred{n})
		if !ok {
			t.Fatal("not deferred")
		}
		if got, ok := d.Get("b"); !ok || got.String() != "2" || d.Key(0) != "a" || d.Len() != 2 {
			t.Errorf("Get b = %s %v, key 0 %q", got, ok, d.Key(0))
		}
		var keys []string
		for k := range d.Members() {
			keys = append(keys, k)
		}
		if len(keys) != 2 || !d.Has("a") || d.String() != `{"a":1,"b":2}` {
			t.Errorf("members %v, text %s", keys, d)
		}
	})
	t.Run("a value that cannot wait is converted at once", func(t *testing.T) {
		h, builds := newHolder()
		h.Pairs.items = nil
		v, _ := FromGoOrigin(h)
		if p, _ := v.Get("pairs"); p.Kind() != Null {
			t.Errorf("nil pairs are %s, want null", p)
		}
		if n := builds.Load(); n != 1 {
			t.Errorf("converted %d times, want once, at once", n)
		}
	})
	t.Run("concurrent readers build it once", func(t *testing.T) {
		h, builds := newHolder("a", "b", "c", "d")
		v, _ := FromGoOrigin(h)
		p, _ := v.Get("pairs")
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if p.Len() != 4 || p.Index(3).String() != `{"k":"d","n":3}` {
					t.Error("a reader saw other parts")
				}
			})
		}
		wg.Wait()
		if n := builds.Load(); n != 1 {
			t.Errorf("built %d times, want 1", n)
		}
	})
	t.Run("a broken promise: the parts are what it writes", func(t *testing.T) {
		h, _ := newHolder("a", "b")
		h.Pairs.broken = true
		v, _ := FromGoOrigin(h)
		p, _ := v.Get("pairs")
		if p.Len() != 2 || p.Index(1).String() != `{"k":"b","n":1}` || p.Kind() != Array {
			t.Errorf("parts: %d, %s", p.Len(), p.Index(1))
		}
	})
	t.Run("WithOrigin on a deferred value keeps its parts", func(t *testing.T) {
		h, _ := newHolder("a")
		p, _ := newDeferred(h.Pairs)
		w := p.WithOrigin("mine")
		if w.Origin() != "mine" || w.String() != `[{"k":"a","n":0}]` || w.Len() != 1 {
			t.Errorf("origin %v, text %s", w.Origin(), w)
		}
	})
	t.Run("a root deferred value is its own origin", func(t *testing.T) {
		h, builds := newHolder("a")
		v, _ := FromGoOrigin(h.Pairs)
		if o, ok := v.Origin().(pairs); !ok || o.items[0] != "a" || builds.Load() != 0 {
			t.Errorf("origin %v, builds %d", v.Origin(), builds.Load())
		}
	})
}

// objDeferred is an object that waits.
type objDeferred struct{ builds *atomic.Int32 }

func (o objDeferred) DeferKind() (Kind, bool) { return Object, true }
func (o objDeferred) JSONValue() (Value, bool) {
	o.builds.Add(1)
	return MustObject(Member{"a", IntValue(1)}, Member{"b", IntValue(2)}), true
}
func (o objDeferred) AppendJSON(dst []byte) ([]byte, error) {
	return append(dst, `{"a":1,"b":2}`...), nil
}
