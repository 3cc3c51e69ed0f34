//go:build linux

package sandbox

import (
	"os"
	"testing"
)

// TestSelf: the helper, the supervisor and the probe are started from the
// running binary's own file, not from its path, which a command or an
// upgrade may have given to another.
func TestSelf(t *testing.T) {
	self, err := Self()
	if err != nil || self != "/proc/self/exe" {
		t.Fatalf("Self = %q, %v", self, err)
	}
	a, err1 := os.Stat(self)
	exe, _ := os.Executable()
	b, err2 := os.Stat(exe)
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		t.Errorf("%s is not this binary %s: %v %v", self, exe, err1, err2)
	}
}
