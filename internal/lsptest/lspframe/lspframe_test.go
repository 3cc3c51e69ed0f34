package lspframe

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	for _, v := range []any{map[string]int{"id": 1}, []string{"a", "ü"}} {
		if err := Write(bw, v); err != nil {
			t.Fatal(err)
		}
	}
	r := bufio.NewReader(&buf)
	for _, want := range []string{`{"id":1}`, `["a","ü"]`} {
		got, err := Read(r)
		if err != nil || string(got) != want {
			t.Fatalf("Read = %q, %v; want %q", got, err, want)
		}
	}
}

func TestRead_Refuses(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"no length", "X-Other: 1\r\n\r\n{}"},
		{"a length that is no number", "Content-Length: twelve\r\n\r\n{}"},
		{"a body cut short", "Content-Length: 10\r\n\r\n{}"},
		{"nothing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := Read(bufio.NewReader(strings.NewReader(tc.in))); err == nil {
				t.Fatalf("Read = %q, nil; want an error", b)
			}
		})
	}
}
