package bridge_test

import (
	"io"
	"os/exec"
	"testing"
)

// socketStdio skips: Windows gives a child no socket for its stdio.
func socketStdio(int) func(testing.TB, *exec.Cmd) (io.WriteCloser, io.Reader) {
	return func(t testing.TB, _ *exec.Cmd) (io.WriteCloser, io.Reader) {
		t.Skip("Windows gives a child's stdio no socket pairs")
		return nil, nil
	}
}

// mkfifo skips: Windows has no FIFOs in its file system.
func mkfifo(t testing.TB, _ string) {
	t.Skip("Windows has no FIFOs")
}

// setUmask skips: Windows has no umask.
func setUmask(t testing.TB, _ int) {
	t.Skip("Windows has no umask")
}
