package sandbox

import (
	"errors"
	"os"
	"os/exec"
)

// mirrorExit ends this process as the process whose Wait returned err
// ended: with its exit code (Windows has no signals to die of).
func mirrorExit(err error) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		os.Exit(126)
	}
	os.Exit(0)
}
