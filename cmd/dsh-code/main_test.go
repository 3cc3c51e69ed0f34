package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestServe_Confined serves a run in a child (this test binary again) and
// checks that the run worked and that the process can no longer read a
// file afterwards: the runner confines itself before the program runs.
func TestServe_Confined(t *testing.T) {
	proctest.InChild(t, "DSH_CODE_CONFINE_CHILD=1", func(t *testing.T) {
		var out bytes.Buffer
		in := strings.NewReader(`{"run":{"code":"return 6 * 7","names":[],"timeoutMs":5000,"maxOutputBytes":1024,"heapHeadroom":0}}` + "\n")
		if err := serve(in, &out, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if want := "dsh-code 1\n" + `{"outcome":{"result":42}}` + "\n"; out.String() != want {
			t.Fatalf("served %q, want %q", out.String(), want)
		}
		proctest.WantConfined(t)
	})
}
