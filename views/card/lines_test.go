package card

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestReadLines_AppendJSON(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines ReadLines
	}{
		{"nil", nil},
		{"empty", ReadLines{}},
		{"plain", ReadLines{{1, "package main"}, {2, ""}}},
		{"escapes", ReadLines{{7, "\t\"quoted\" \\ <tag> & \u2028 \x01 é 😀"}}},
	} {
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
