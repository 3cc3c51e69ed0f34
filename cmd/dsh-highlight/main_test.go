package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
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
			fmt.Println("niceness:", niceOfThreads())
			close(done)
		}()
		<-done
		os.Exit(0)
	}
	out, err := proctest.Child("TestYieldCPU", "DSH_TEST_YIELD=1")
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	_, line, _ := strings.Cut(string(out), "niceness:")
	line, _, _ = strings.Cut(line, "\n")
	nices := strings.Fields(line)
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
