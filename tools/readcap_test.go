package tools

import (
	"strconv"
	"strings"
	"testing"
)

// TestRead_ByteCapEdge: a window of exactly ReadMaxBytes bytes of
// selected text (newlines between lines included) is shown whole; one
// byte more caps it before the line that passes, from any offset, with
// the files on disk or in the editor's buffers.
func TestRead_ByteCapEdge(t *testing.T) {
	// 512 lines: 511 of 99 bytes and the last of last bytes, 511 newlines
	// between them: 511*99 + 511 + 100 = 51200 = ReadMaxBytes.
	lines := func(last int) string {
		return strings.Repeat(strings.Repeat("a", 99)+"\n", 511) + strings.Repeat("b", last) + "\n"
	}
	if n := 511*99 + 511 + 100; n != ReadMaxBytes {
		t.Fatalf("the fixture selects %d bytes, want %d", n, ReadMaxBytes)
	}
	for _, tc := range []struct {
		name, content, args, footer string
		shown                       int // the last line shown
	}{
		{"exactly the cap, to the end", lines(100), `{"file_path":"f.txt"}`, "(End of file - total 512 lines)", 512},
		{"one past the cap", lines(101), `{"file_path":"f.txt"}`, "(Output capped. Showing lines 1-511. Use offset=512 to continue.)", 511},
		{"one below the cap", lines(99), `{"file_path":"f.txt"}`, "(End of file - total 512 lines)", 512},
		{"exactly the cap, a line follows", lines(100) + "c\n", `{"file_path":"f.txt"}`, "(Output capped. Showing lines 1-512. Use offset=513 to continue.)", 512},
		{"exactly the cap, an empty line follows", lines(100) + "\n", `{"file_path":"f.txt"}`, "(Output capped. Showing lines 1-512. Use offset=513 to continue.)", 512},
		{"exactly the cap from an offset", "skipped\n" + lines(100), `{"file_path":"f.txt","offset":2}`, "(End of file - total 513 lines)", 513},
		{"one past the cap from an offset", "skipped\n" + lines(101), `{"file_path":"f.txt","offset":2}`, "(Output capped. Showing lines 2-512. Use offset=513 to continue.)", 512},
		{"exactly the cap, a line limit right after", lines(100) + "c\n", `{"file_path":"f.txt","limit":512}`, "(Showing lines 1-512 of 513. Use offset=513 to continue.)", 512},
	} {
		for _, host := range []struct {
			name string
			h    Host
		}{{"disk", LocalHost{}}, {"editor", newEditorHost()}} {
			t.Run(tc.name+", "+host.name, func(t *testing.T) {
				e := newEnv(t, host.h)
				e.write("f.txt", tc.content)
				got := wantOK(t, e.call("read", tc.args))
				if !strings.Contains(got, "\n\n"+tc.footer+"\n</content>") {
					t.Errorf("got footer %q, want %q", got[max(0, len(got)-120):], tc.footer)
				}
				if want := strconv.Itoa(tc.shown) + ": "; !strings.Contains(got, "\n"+want) || strings.Contains(got, "\n"+strconv.Itoa(tc.shown+1)+": ") {
					t.Errorf("got lines to %q missing or more shown, want the last %d", got[max(0, len(got)-300):], tc.shown)
				}
			})
		}
	}
}
