package jsonv

import (
	"math"
	"strings"
	"testing"
)

type appendSelf struct{ calls *int }

func (a *appendSelf) AppendJSON(dst []byte) ([]byte, error) {
	*a.calls++
	return append(dst, `"self"`...), nil
}

type tagMe struct {
	Title string `json:"title,omitempty"`
	N     int    `json:"n"`
}

func TestAppendGo(t *testing.T) {
	calls := 0
	deep := any(nil)
	for range maxDepth + 5 {
		deep = []any{deep}
	}
	for _, tc := range []struct {
		name, want, wantErr string
		in                  any
	}{
		{name: "nil", in: nil, want: "null"},
		{name: "value written as it is", in: map[string]any{"v": MustParse(`{"b":[1,2.50],"a":"x"}`)}, want: `{"v":{"b":[1,2.50],"a":"x"}}`},
		{name: "appender wins over encoding/json", in: []any{&appendSelf{&calls}}, want: `["self"]`},
		// A pointer-receiver appender held by value: used where it can be
		// addressed (a slice's element), walked where it cannot (a copy in
		// an interface; its unexported field makes it an empty object).
		{name: "addressable value with a pointer appender", in: []appendSelf{{&calls}}, want: `["self"]`},
		{name: "unaddressable value with a pointer appender", in: any(appendSelf{&calls}), want: `{}`},
		{name: "html is not escaped", in: "<a & b>", want: `"<a & b>"`},
		{name: "invalid UTF-8 becomes U+FFFD", in: "a\xffb", want: `"a\ufffdb"`},
		{name: "nil pointer", in: (*tagMe)(nil), want: "null"},
		{name: "NaN", in: math.NaN(), wantErr: "NaN"},
		{name: "absent value", in: []Value{{}}, wantErr: "absent"},
		{name: "too deep", in: deep, wantErr: "too deeply"},
		{name: "func", in: struct{ F func() }{func() {}}, wantErr: "not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendGo([]byte("prefix:"), tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %s, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != "prefix:"+tc.want {
				t.Errorf("got %s, %v; want prefix:%s", got, err, tc.want)
			}
		})
	}
	if calls != 2 {
		t.Errorf("the appender ran %d times, want 2", calls)
	}
	t.Run("tagged", func(t *testing.T) {
		for _, tc := range []struct {
			in   tagMe
			want string
		}{
			{tagMe{Title: "t", N: 1}, `{"card":"read","title":"t","n":1}`},
			{tagMe{N: 2}, `{"card":"read","n":2}`},
		} {
			got, err := AppendTagged(nil, &tc.in, "card", "read")
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s, %v; want %s", got, err, tc.want)
			}
		}
		type emb struct{ tagMe }
		if _, err := AppendTagged(nil, &emb{}, "card", "x"); err == nil {
			t.Error("a struct the walker leaves to encoding/json was tagged")
		}
	})
}
