package card

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// lineCases are the windows both encodings are checked on.
var lineCases = []struct {
	name  string
	lines ReadLines
}{
	{"nil", nil},
	{"empty", ReadLines{}},
	{"plain", ReadLines{{1, "package main"}, {2, ""}}},
	{"escapes", ReadLines{{7, "\t\"quoted\" \\ <tag> & \u2028 \x01 é 😀"}}},
	{"many", manyLines(2000)},
}

func TestReadLines_AppendJSON(t *testing.T) {
	for _, tc := range lineCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.lines.AppendJSON([]byte("x"))
			if err != nil || got[0] != 'x' {
				t.Fatalf("%q %v", got, err)
			}
			want, _ := json.Marshal([]ReadFileLine(tc.lines))
			var a, b any
			if err := json.Unmarshal(got[1:], &a); err != nil {
				t.Fatalf("not JSON: %s: %v", got[1:], err)
			}
			_ = json.Unmarshal(want, &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("got %s, want %s", got[1:], want)
			}
		})
	}
}

// TestReadLines_JSONValue: the bulk conversion builds the Value the
// reflective walk builds from the same lines (a plain slice, which has no
// JSONValue), and gives way to the walk for invalid UTF-8.
func TestReadLines_JSONValue(t *testing.T) {
	for _, tc := range lineCases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.lines.JSONValue()
			if !ok {
				t.Fatal("JSONValue refused valid lines")
			}
			want, err := jsonv.FromGo([]ReadFileLine(tc.lines))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) || got.String() != want.String() {
				t.Errorf("got %s, want %s", got, want)
			}
			// Inside a struct, the walk takes the bulk path and keeps the
			// origin.
			type out struct{ Lines ReadLines }
			v, err := jsonv.FromGoOrigin(out{tc.lines})
			if err != nil || v.Origin() == nil {
				t.Fatalf("FromGoOrigin: %v, origin %v", err, v.Origin())
			}
			if l, _ := v.Get("Lines"); !l.Equal(want) {
				t.Errorf("in a struct: got %s, want %s", l, want)
			}
		})
	}
	t.Run("invalid UTF-8", func(t *testing.T) {
		lines := ReadLines{{1, "ok"}, {2, "bad \xff byte"}}
		if _, ok := lines.JSONValue(); ok {
			t.Fatal("JSONValue accepted invalid UTF-8")
		}
		v, err := jsonv.FromGo(lines) // the walk: U+FFFD, as encoding/json
		if err != nil {
			t.Fatal(err)
		}
		if want := "[{\"number\":1,\"text\":\"ok\"},{\"number\":2,\"text\":\"bad \uFFFD byte\"}]"; v.String() != want {
			t.Errorf("got %s, want %s", v, want)
		}
	})
}

func manyLines(n int) ReadLines {
	ls := make(ReadLines, n)
	for i := range ls {
		ls[i] = ReadFileLine{Number: i + 1, Text: strings.Repeat("x\t", i%40)}
	}
	return ls
}

// TestReadLines_ConvertsInBulk: every read's typed output (and its
// presentation meta) is converted to a Value; the lines must take the bulk
// path, a few allocations for any number of lines, not the reflective walk
// (several per line: 14 % of the bridge's CPU in a read-heavy profile).
func TestReadLines_ConvertsInBulk(t *testing.T) {
	type out struct {
		Path  string    `json:"path"`
		Lines ReadLines `json:"lines"`
	}
	x := out{"f.go", manyLines(2000)}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := jsonv.FromGoOrigin(x); err != nil {
			t.Fatal(err)
		}
	})
	// The walk made about 5 per line.
	if limit := 20.0; allocs > limit {
		t.Errorf("%.0f allocations for %d lines, want at most %.0f", allocs, len(x.Lines), limit)
	}
}

// TestReadLines_WritesItsValue: what the lines write (AppendJSON, the
// one-pass path) is, byte for byte, what their Value writes.
func TestReadLines_WritesItsValue(t *testing.T) {
	for _, tc := range lineCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lines == nil {
				return // null: written by the walk, not by AppendJSON
			}
			built, _ := tc.lines.JSONValue()
			written, err := tc.lines.AppendJSON(nil)
			if err != nil || string(written) != built.String() {
				t.Errorf("writes %.80s, its Value %.80s (%v)", written, built, err)
			}
		})
	}
}
