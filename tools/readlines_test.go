package tools

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

// TestLineArena: the strings a window's arena hands out never change, as
// lines are added past a block's room (a full block is replaced, never
// written again).
func TestLineArena(t *testing.T) {
	for _, tc := range []struct {
		name    string
		initial int
	}{
		{"no block yet", 0},
		{"a small block", 16},
		{"a block the size of the file", 4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := lineArena{buf: make([]byte, 0, tc.initial)}
			var want, got []string
			for i := range 500 {
				line := fmt.Sprintf("line %d %s", i, strings.Repeat("x", i%37))
				want = append(want, line)
				got = append(got, a.text([]byte(line)))
			}
			if a.text(nil) != "" {
				t.Error("an empty line is not empty")
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("line %d became %q, want %q", i, got[i], want[i])
				}
			}
		})
	}
}

// TestWindow_Sizing: a window sized from what the reader holds reads the
// same lines as one that grows, whatever the offset, limit and file size.
func TestWindow_Sizing(t *testing.T) {
	for _, tc := range []struct {
		name          string
		lines         int
		offset, limit int
	}{
		{"whole small file", 100, 1, 2000},
		{"limit under the file", 100, 1, 10},
		{"offset", 100, 40, 2000},
		{"larger than the reader's buffer", 6000, 1, 2000},
		{"no trailing newline, one line", 1, 1, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for i := range tc.lines {
				fmt.Fprintf(&b, "%d\t%s\n", i+1, strings.Repeat("ab", i%8))
			}
			text := strings.TrimSuffix(b.String(), "\n")
			br := bufio.NewReaderSize(strings.NewReader(text), 4096)
			br.Peek(1) // as the read does (its binary check)
			v, _, err := window(br, readInput{offset: tc.offset, limit: tc.limit}, "f")
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Split(text, "\n")
			wantN := min(tc.limit, len(all)-tc.offset+1)
			if len(v.Lines) != wantN || v.TotalLines != len(all) {
				t.Fatalf("%d lines of %d, want %d of %d", len(v.Lines), v.TotalLines, wantN, len(all))
			}
			for i, l := range v.Lines {
				if l.Number != tc.offset+i || l.Text != all[tc.offset+i-1] {
					t.Fatalf("line %d is %d %q, want %d %q", i, l.Number, l.Text, tc.offset+i, all[tc.offset+i-1])
				}
			}
		})
	}
}
