//go:build !linux

package sandbox

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	Main(Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	os.Exit(m.Run())
}
