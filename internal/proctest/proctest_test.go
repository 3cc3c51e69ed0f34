package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// TestRunning_OnlyThisRun: a process with the marker counts, and is swept,
// when it carries this run's RunVar; one that another run started (another
// value) is neither seen nor killed.
func TestRunning_OnlyThisRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string // added to this process's environment
		want bool
	}{
		{"this run's", nil, true},
		{"another run's", []string{RunVar + "=another-run"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const marker = "sleep\x007788"
			cmd := exec.Command("sleep", "7788")
			cmd.Env = append(os.Environ(), tc.env...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Until it has exec'd, the child shows this binary's command line.
			cmdline := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "cmdline")
			for b, _ := os.ReadFile(cmdline); !strings.Contains(string(b), marker); b, _ = os.ReadFile(cmdline) {
				time.Sleep(time.Millisecond)
			}
			if got := Running(marker); got != tc.want {
				t.Errorf("got Running %v, want %v", got, tc.want)
			}
			kill(marker)
			// A process the sweep missed is ended here by SIGTERM; the
			// first signal decides how it ended.
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			want := map[bool]syscall.Signal{true: syscall.SIGKILL, false: syscall.SIGTERM}[tc.want]
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != want {
				t.Errorf("got %v, want the process ended by %v", cmd.ProcessState, want)
			}
		})
	}
}
