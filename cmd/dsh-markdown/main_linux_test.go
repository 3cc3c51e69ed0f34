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
