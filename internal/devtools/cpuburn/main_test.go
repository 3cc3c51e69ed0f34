package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv makes this test binary act as the command cpuburn runs: "exit N"
// exits with N, "block" blocks until it is killed.
const childEnv = "CPUBURN_TEST_CHILD"

func TestMain(m *testing.M) {
	switch v := os.Getenv(childEnv); {
	case v == "block":
		time.Sleep(time.Hour) // a timer: select{} alone is a deadlock without -race's goroutines
	case strings.HasPrefix(v, "exit "):
		n, _ := strconv.Atoi(strings.TrimPrefix(v, "exit "))
		os.Exit(n)
	}
	os.Exit(m.Run())
}

// TestRun_ExitStatus: cpuburn exits with its command's status, with 124
// when its hard limit killed the command, and with 2 on a usage error.
func TestRun_ExitStatus(t *testing.T) {
	self := os.Args[0]
	for _, tc := range []struct {
		name    string
		child   string
		args    []string
		want    int
		wantErr string
	}{
		{"the command's success", "exit 0", []string{"-n", "2", "--", self}, 0, ""},
		{"the command's failure", "exit 3", []string{"-n", "2", "--", self}, 3, ""},
		{"the hard limit kills the command", "block", []string{"-n", "1", "-limit", "100ms", "--", self}, exitLimit, "hard limit"},
		{"no command", "", []string{"-n", "1"}, 2, "usage"},
		{"a command that cannot start", "", []string{"--", "/nonexistent/cpuburn-test"}, 1, "cpuburn:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(childEnv, tc.child)
			var stderr bytes.Buffer
			if got := run(tc.args, nil, &stderr, &stderr); got != tc.want {
				t.Errorf("got status %v, want %v (stderr %q)", got, tc.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("got stderr %q, want it to contain %q", stderr.String(), tc.wantErr)
			}
		})
	}
}

// TestBurn_Stops: stop returns once the burning goroutines have stopped
// spinning, and may be called twice.
func TestBurn_Stops(t *testing.T) {
	stop := burn(3)
	stop()
	stop()
}
