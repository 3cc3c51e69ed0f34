// Package proctest helps tests prove that processes are gone.
package proctest

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Gone reports whether no process whose command line contains marker
// (NUL-separated arguments, for example "sleep\x007791") is left, polling
// for up to two seconds.
func Gone(marker string) bool {
	for range 100 {
		found := false
		entries, err := os.ReadDir("/proc")
		if err != nil || len(entries) == 0 {
			return false // without /proc nothing can be proved gone
		}
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), marker) {
				found = true
				break
			}
		}
		if !found {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
