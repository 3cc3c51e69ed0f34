package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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

// TestRun_Confined runs the helper's serving in a child (this test binary
// again) on an input that ends at once, and checks that it answered and
// that the process can no longer read a file: it confines itself before
// it reads a request.
func TestRun_Confined(t *testing.T) {
	proctest.InChild(t, "DSH_HIGHLIGHT_CONFINE_CHILD=1", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(strings.NewReader(""), &out, os.Stderr); err != nil || out.String() != "dsh-highlight 1\n" {
			t.Fatalf("served %q, %v", out.String(), err)
		}
		proctest.WantConfined(t)
	})
}

// TestTune: one thread of Go code and a lazier collector, unless the
// environment says otherwise.
func TestTune(t *testing.T) {
	procs, gc := runtime.GOMAXPROCS(0), debug.SetGCPercent(100)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs); debug.SetGCPercent(gc) })
	for _, tc := range []struct {
		name, procs, gogc string
		wantProcs, wantGC int
	}{
		{"defaults", "", "", 1, 400},
		{"the environment's", "2", "150", 2, 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tc.procs)
			t.Setenv("GOGC", tc.gogc)
			runtime.GOMAXPROCS(2)
			debug.SetGCPercent(150)
			tune()
			if got := runtime.GOMAXPROCS(0); got != tc.wantProcs {
				t.Errorf("GOMAXPROCS %d, want %d", got, tc.wantProcs)
			}
			if got := debug.SetGCPercent(150); got != tc.wantGC {
				t.Errorf("GOGC %d, want %d", got, tc.wantGC)
			}
		})
	}
}
