package proctest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestWriteExec writes and runs scripts while other goroutines start
// processes all along: with the descriptor leaked into a child forked
// meanwhile, a run fails with "text file busy".
func TestWriteExec(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	var forkers sync.WaitGroup
	for range 2 {
		forkers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					exec.Command("/bin/true").Run()
				}
			}
		})
	}
	defer forkers.Wait()
	defer close(stop)
	// A long script keeps the file open for writing longer.
	script := []byte("#!/bin/sh\nexit 0\n#" + strings.Repeat("x", 1<<20) + "\n")
	for i := range 150 {
		p := filepath.Join(dir, "s"+strconv.Itoa(i))
		WriteExec(t, p, script)
		if out, err := exec.Command(p).CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v %s", i, err, out)
		}
	}
}
