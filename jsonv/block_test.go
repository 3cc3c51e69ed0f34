package jsonv

import (
	"fmt"
	"testing"
)

func TestBlock(t *testing.T) {
	b := NewBlock(2) // grows past its size
	num := b.Int(-42)
	str, ok := b.String("é\t\"")
	if !ok {
		t.Fatal("String refused valid UTF-8")
	}
	if _, ok := b.String("\xff"); ok {
		t.Error("String accepted invalid UTF-8")
	}
	keys := []string{"n", "s"}
	o1, err := b.Object(keys, []Value{num, str})
	if err != nil {
		t.Fatal(err)
	}
	o2, err := b.Object(keys, []Value{b.Int(7), str}) // shared keys
	if err != nil {
		t.Fatal(err)
	}
	arr := b.Array([]Value{o1, o2})
	if want := `[{"n":-42,"s":"é\t\""},{"n":7,"s":"é\t\""}]`; arr.String() != want {
		t.Errorf("got %s, want %s", arr, want)
	}
	if parsed, _ := Parse([]byte(arr.String())); !parsed.Equal(arr) {
		t.Error("the block's value differs from its parsed text")
	}
	for _, tc := range []struct {
		name string
		keys []string
		vals []Value
	}{
		{"duplicate key", []string{"a", "a"}, []Value{num, num}},
		{"counts differ", []string{"a"}, []Value{num, num}},
		{"duplicate in a large object", bigKeys(IndexThreshold, true), make([]Value, IndexThreshold)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := b.Object(tc.keys, tc.vals); err == nil {
				t.Error("no error")
			}
		})
	}
	t.Run("numbers outlive their buffer", func(t *testing.T) {
		b := NewBlock(1)
		nums := make([]Value, 5000) // several digit buffers
		for i := range nums {
			nums[i] = b.Int(int64(i*7919 - 1_000_000_000_000))
		}
		for i, v := range nums {
			if want := fmt.Sprint(i*7919 - 1_000_000_000_000); v.String() != want {
				t.Fatalf("number %d is %s, want %s", i, v, want)
			}
		}
	})
	t.Run("large object is indexed", func(t *testing.T) {
		keys := bigKeys(IndexThreshold+3, false)
		vals := make([]Value, len(keys))
		for i := range vals {
			vals[i] = b.Int(int64(i))
		}
		o, err := b.Object(keys, vals)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := o.Get(keys[len(keys)-1]); !ok || v.String() != fmt.Sprint(len(keys)-1) {
			t.Errorf("Get: %s %v", v, ok)
		}
	})
}

func bigKeys(n int, dup bool) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	if dup {
		keys[n-1] = keys[0]
	}
	return keys
}

// bulk is a Converter; refuse makes it give way to the walk.
type bulk struct {
	N      int `json:"n"`
	refuse bool
}

func (x bulk) JSONValue() (Value, bool) {
	if x.refuse {
		return Value{}, false
	}
	return MustObject(Member{"n", IntValue(int64(x.N))}, Member{"bulk", BoolValue(true)}), true
}

// TestFromGo_PrefersConverter: a Converter builds its own value, wherever
// it sits; one that refuses is walked.
func TestFromGo_PrefersConverter(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"top level", bulk{N: 1}, `{"n":1,"bulk":true}`},
		{"field", struct {
			B bulk `json:"b"`
		}{bulk{N: 2}}, `{"b":{"n":2,"bulk":true}}`},
		{"pointer", &bulk{N: 3}, `{"n":3,"bulk":true}`},
		{"nil pointer", struct {
			B *bulk `json:"b"`
		}{}, `{"b":null}`},
		{"refused", bulk{N: 4, refuse: true}, `{"n":4}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := FromGo(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != tc.want {
				t.Errorf("got %s, want %s", v, tc.want)
			}
		})
	}
}
