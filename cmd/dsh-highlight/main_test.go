package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestYieldCPU runs yieldCPU in a child (this test binary again) and reads
// the niceness of every thread the child has then, including one started
// after the call: all must be lowered.
func TestYieldCPU(t *testing.T) {
	if os.Getenv("DSH_TEST_YIELD") == "1" {
		if err := yieldCPU(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		done := make(chan struct{})
		go func() { // a thread of its own, started after the call
			runtime.LockOSThread()
			fmt.Println(niceOfThreads())
			close(done)
		}()
		<-done
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestYieldCPU$")
	cmd.Env = append(os.Environ(), "DSH_TEST_YIELD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	nices := strings.Fields(strings.TrimSpace(string(out)))
	if len(nices) < 2 {
		t.Fatalf("child threads: %q", out)
	}
	for _, n := range nices {
		if n != fmt.Sprint(niceness) {
			t.Errorf("a thread has niceness %s, want %d (all: %v)", n, niceness, nices)
		}
	}
}

// niceOfThreads lists the niceness of each of this process's threads
// (field 19 of /proc/self/task/*/stat).
func niceOfThreads() string {
	stats, _ := filepath.Glob("/proc/self/task/*/stat")
	var out []string
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		out = append(out, fields[16]) // field 19 of the whole line
	}
	return strings.Join(out, " ")
}
