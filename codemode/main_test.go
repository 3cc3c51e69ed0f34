package codemode

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/dsh-bridge/dsh-bridge/codemode/jsvm"
)

// runnerEnv makes this test binary Code Mode's runner: the runs of the
// package's tests go through a real runner process, over the protocol,
// without building dsh-code first.
const runnerEnv = "DSH_CODEMODE_TEST_RUNNER"

func TestMain(m *testing.M) {
	if os.Getenv(runnerEnv) == "1" {
		status, err := os.Open("/proc/self/status") // the memory cap, as dsh-code has it
		if err != nil {
			fmt.Fprintln(os.Stderr, "runner:", err)
			os.Exit(1)
		}
		if err := jsvm.Serve(os.Stdin, os.Stdout, status); err != nil {
			fmt.Fprintln(os.Stderr, "runner:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Setenv(runnerEnv, "1")
	if os.Getenv("DSH_CODE_RUNNER") == "" { // a benchmark may name the real dsh-code
		os.Setenv("DSH_CODE_RUNNER", os.Args[0])
	}
	code := m.Run()
	StopSpare() // the spare runner and its reader goroutine
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
