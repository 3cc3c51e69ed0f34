package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		name, page string
		want       []string
		absent     []string
		err        string
	}{
		{
			name:   "a page",
			page:   `<html><head><title>T</title><script>evil()</script></head><body><h1>Hello</h1><p>Some <b>bold</b> text and a <a href="/x">link</a>.</p></body></html>`,
			want:   []string{"# Hello", "**bold**", "[link](/x)"},
			absent: []string{"evil()", "<p>"},
		},
		{name: "a fragment", page: `<ul><li>one</li><li>two</li></ul>`, want: []string{"- one", "- two"}},
		{name: "empty", page: ``},
		{name: "too large", page: strings.Repeat("x", maxInput+1), err: "over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := convert(strings.NewReader(tc.page), &out)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("missing %q in %q", s, out.String())
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(out.String(), s) {
					t.Errorf("unexpected %q in %q", s, out.String())
				}
			}
		})
	}
}
