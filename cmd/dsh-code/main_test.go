package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestServe_Confined serves a run in a child (this test binary again) and
// checks that the run worked and that the process can no longer read a
// file afterwards: the runner confines itself before the program runs.
func TestServe_Confined(t *testing.T) {
	if os.Getenv("DSH_CODE_CONFINE_CHILD") == "1" {
		var out bytes.Buffer
		in := strings.NewReader(`{"run":{"code":"return 6 * 7","names":[],"timeoutMs":5000,"maxOutputBytes":1024,"heapHeadroom":0}}` + "\n")
		if err := serve(in, &out, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if want := "dsh-code 1\n" + `{"outcome":{"result":42}}` + "\n"; out.String() != want {
			t.Fatalf("served %q, want %q", out.String(), want)
		}
		if _, err := os.ReadFile(os.Args[0]); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("read a file after serving: %v", err)
		}
		return
	}
	out, err := proctest.Child("TestServe_Confined", "DSH_CODE_CONFINE_CHILD=1")
	if err != nil || !strings.Contains(string(out), "--- PASS: TestServe_Confined") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}
