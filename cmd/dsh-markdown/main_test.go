package main

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestRun_Confined converts a page in a child (this test binary again)
// and checks that the process then can no longer read a file and that
// its memory is capped: the helper locks itself down before it reads the
// page.
func TestRun_Confined(t *testing.T) {
	proctest.InChild(t, "DSH_MARKDOWN_CONFINE_CHILD=1", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(strings.NewReader("<h1>Hi</h1>"), &out, os.Stderr); err != nil || out.String() != "# Hi" {
			t.Fatalf("converted %q, %v", out.String(), err)
		}
		proctest.WantConfined(t)
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &lim); err != nil || lim.Cur != maxMemory {
			t.Fatalf("RLIMIT_DATA %d (%v), want %d", lim.Cur, err, maxMemory)
		}
	})
}

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
