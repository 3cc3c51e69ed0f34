package jsonv

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

type walkInner struct {
	N     int     `json:"n"`
	F     float32 `json:"f,omitempty"`
	Skip  string  `json:"-"`
	Dash  string  `json:"-,"`
	Bad   string  `json:"a\"b"`
	plain string
}

type walkKey string

type walkOuter struct {
	Name    string              `json:"name"`
	Ptr     *walkInner          `json:"ptr"`
	NilPtr  *walkInner          `json:"nilPtr"`
	Items   []walkInner         `json:"items"`
	NilList []int               `json:"nilList"`
	Empty   []int               `json:"empty,omitempty"`
	Map     map[walkKey]float64 `json:"map"`
	IntMap  map[int]string      `json:"intMap"`
	Bytes   []byte              `json:"bytes"`
	When    time.Time           `json:"when"`
	Any     any                 `json:"any"`
	Arr     [2]int8             `json:"arr"`
	U       uint16              `json:"u,omitempty"`
	Zero    bool                `json:"zero,omitempty"`
	Untyped map[string]any      `json:"untyped"`
}

type walkWide struct {
	A, B, C, D, E, F, G int
	H                   string `json:"h,omitempty"`
	I, J, K, L, M       int
}

type walkZero struct {
	V     Value     `json:"v,omitzero"`
	When  time.Time `json:"when,omitzero"`
	List  []int     `json:"list,omitzero"`
	Inner walkInner `json:"inner,omitzero"`
	N     int       `json:"n"`
}

type walkEmbedded struct {
	walkInner
	Extra int `json:"extra"`
}

// walkDup's two fields are both "B" (the tagged one wins).
type walkDup struct {
	A int `json:"B"`
	B int
}

type walkString struct {
	N int `json:"n,string"`
}

// viaEncodingJSON is what FromGo gave before the walker: encoding/json,
// then the strict parser.
func viaEncodingJSON(t *testing.T, x any) string {
	t.Helper()
	data, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

func TestFromGo_WalkerMatchesEncodingJSON(t *testing.T) {
	full := walkOuter{
		Name:    "caf\xe9 \xff\xfe <tag> & \u2028",
		Ptr:     &walkInner{N: 1, F: 0.1, Skip: "no", Dash: "dash", Bad: "bad", plain: "hidden"},
		Items:   []walkInner{{N: 2}, {N: 3, F: 1e-7}},
		Map:     map[walkKey]float64{"b": 1e21, "a": 1e-7, "c": 123456789.125},
		IntMap:  map[int]string{10: "ten", 2: "two"},
		Bytes:   []byte("hi\x00"),
		When:    time.Date(2026, 11, 30, 10, 0, 0, 5, time.UTC),
		Any:     map[string]any{"k": []any{1, "x"}},
		Arr:     [2]int8{-1, 127},
		U:       7,
		Untyped: map[string]any{"z": nil},
	}
	for _, tc := range []struct {
		name string
		in   any
	}{
		{"full struct", full},
		{"pointer to struct", &full},
		{"zero struct", walkOuter{}},
		{"typed slice", []walkInner{{N: 1}}},
		{"wide struct, every field", walkWide{A: 1, H: "h", M: 13}},
		{"wide struct, a field omitted", walkWide{A: 1, M: 13}},
		{"nil typed slice", []walkInner(nil)},
		{"typed map with string kind keys", map[walkKey]int{"b": 2, "a": 1}},
		{"omitzero, all zero", walkZero{N: 1}},
		{"omitzero, none zero", walkZero{V: MustParse(`[1]`), When: time.Unix(5, 0).UTC(), List: []int{}, Inner: walkInner{N: 2}}},
		{"embedded field falls back", walkEmbedded{walkInner: walkInner{N: 4}, Extra: 5}},
		{"duplicate names fall back", walkDup{A: 1, B: 2}},
		{"string option falls back", walkString{N: 12}},
		{"float32 precision", []float32{0.1, 1e-7, 3.4e38, 16777216}},
		{"int kinds", []int16{-32768, 32767}},
		{"time marshaler", full.When},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromGo(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if want := viaEncodingJSON(t, tc.in); got.String() != want {
				t.Errorf("walker:\n %s\nencoding/json:\n %s", got, want)
			}
			// AppendGo writes the same JSON in one pass.
			data, err := AppendGo(nil, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if direct, err := Parse(data); err != nil || direct.String() != got.String() {
				t.Errorf("AppendGo:\n %s (%v)\nFromGo:\n %s", data, err, got)
			}
			// Lookups work on shared keys and indexes alike.
			if got.Kind() == Object {
				for k, v := range got.Members() {
					if w, ok := got.Get(k); !ok || !w.Same(v) {
						t.Errorf("Get(%q) = %v, %v", k, w, ok)
					}
				}
			}
		})
	}
	t.Run("random floats", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 20000 {
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
				continue
			}
			x := struct {
				F  float64
				F3 float32
			}{f, float32(f)}
			if math.IsInf(float64(x.F3), 0) || x.F3 == 0 {
				x.F3 = 1.5
			}
			got, err := FromGo(x)
			if err != nil {
				t.Fatal(err)
			}
			if want := viaEncodingJSON(t, x); got.String() != want {
				t.Fatalf("%v: walker %s, encoding/json %s", f, got, want)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		type cyc struct{ Next *cyc }
		loop := &cyc{}
		loop.Next = loop
		for _, x := range []any{
			struct{ F float64 }{math.Inf(1)},
			struct{ F float64 }{math.Copysign(0, -1)},
			struct{ C chan int }{make(chan int)},
			loop,
		} {
			if v, err := FromGo(x); err == nil {
				t.Errorf("%T: got %s, want an error", x, v)
			}
		}
	})
}

func TestFromGoOrigin(t *testing.T) {
	in := walkInner{N: 1}
	v, err := FromGoOrigin(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := v.Origin().(walkInner); !ok || got != in {
		t.Errorf("origin %#v, want %#v", v.Origin(), in)
	}
	plain, _ := FromGo(in)
	if plain.Origin() != nil || !plain.Equal(v) || plain.String() != v.String() {
		t.Errorf("FromGo %s (origin %v) differs from FromGoOrigin %s", plain, plain.Origin(), v)
	}
	parsed, _ := Parse([]byte(`{"n":1}`))
	if parsed.Origin() != nil {
		t.Error("a parsed value has an origin")
	}
	lossy, err := FromGoOrigin(walkInner{Bad: "\xff"})
	if err != nil {
		t.Fatal(err)
	}
	if lossy.Origin() != nil {
		t.Error("a conversion that replaced invalid UTF-8 keeps its origin, which differs from the value")
	}
	if (Value{}).Origin() != nil {
		t.Error("the absent value has an origin")
	}
}
