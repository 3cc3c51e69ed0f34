package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"

	"go.uber.org/goleak"
)

var (
	fakels    string // the misbehaving server (internal/lsptest/fakels)
	hostilels string // the hostile one (testdata/hostilels)
)

func TestMain(m *testing.M) {
	proctest.MainWithHelpers(m,
		proctest.Helper{Pkg: "../internal/lsptest/fakels", Name: "fakels", Use: func(bin string) { fakels = bin }},
		proctest.Helper{Pkg: "./testdata/hostilels", Name: "hostilels", Use: func(bin string) { hostilels = bin }},
		proctest.Helper{Pkg: "./redteam2/hostile", Name: "red2hostile", Use: func(bin string) { red2Bin = bin }})
}

// alive reports whether any pid listed in file still runs.
func alive(t *testing.T, file string) []int {
	t.Helper()
	b, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if p, err := os.FindProcess(pid); pid > 0 && err == nil && p.Signal(syscall.Signal(0)) == nil {
			out = append(out, pid)
		}
	}
	return out
}

// TestManager_MisbehavingServers: a server that is missing, never
// answers, crashes at once or crashes after initialize makes every call
// return (with why), is reported exactly once however many calls meet
// it, and leaves no process behind; one that answers but never publishes
// makes the wait end at its bound without a report.
func TestManager_MisbehavingServers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, tc := range []struct {
		name, mode, want string
		reports          int
	}{
		{"missing", "", "not available", 1},
		{"never answers", "hang", "did not answer initialize", 1},
		{"crashes at once", "crash", "not available", 1},
		{"crashes after initialize", "crash-later", "not available", 1},
		{"never publishes", "silent", "reported nothing", 0},
		{"stops reading its input", "deaf", "did not read its input", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pids := filepath.Join(dir, "pids")
			cmd := []string{filepath.Join(dir, "no-such-server")}
			if tc.mode != "" {
				cmd = []string{fakels, tc.mode, pids}
			}
			var r reports
			m := New(Options{Roots: []string{dir}, Servers: []Server{{Language: "fake", Command: cmd, Extensions: []string{".fake"}}},
				Report: r.add, StartTimeout: 2 * time.Second, Wait: 200 * time.Millisecond, Backoff: 10 * time.Millisecond,
				Launch: Launcher{Env: os.Environ()}})
			path := filepath.Join(dir, "a.fake")
			var errs []string
			// Until the manager gives the server up (it restarts a crashed
			// one MaxRestarts times), and twice more.
			for i, after := 0, 2; i < 4*MaxRestarts && after > 0; i++ {
				// A megabyte: more than a pipe holds.
				ds, err := m.Changed(context.Background(), path, strings.Repeat("x", 1<<20)+strconv.Itoa(i), true)
				if err == nil || len(ds) != 0 {
					t.Fatalf("call %d: %v, %v; want an error", i, ds, err)
				}
				errs = append(errs, err.Error())
				if strings.Contains(err.Error(), "not available") || tc.mode == "silent" {
					after--
				}
			}
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q, want one with %q", errs, tc.want)
			}
			m.Close()
			if got := r.list(); len(got) != tc.reports {
				t.Errorf("reports %q, want %d", got, tc.reports)
			}
			if left := alive(t, pids); len(left) > 0 {
				t.Errorf("server processes %v outlive the manager", left)
			}
		})
	}
}

// TestManager_NoServerForTheLanguage: a file no server serves answers at
// once with ErrNoServer, and starts nothing.
func TestManager_NoServerForTheLanguage(t *testing.T) {
	m := New(Options{Servers: Builtins()})
	defer m.Close()
	for _, p := range []string{"/x/notes.txt", "/x/Makefile", "/x/go"} {
		if _, err := m.Changed(context.Background(), p, "x", true); err == nil || !strings.Contains(err.Error(), ErrNoServer.Error()) {
			t.Errorf("%s: %v, want ErrNoServer", p, err)
		}
	}
	if s := m.started(); len(s) != 0 {
		t.Errorf("servers started: %d", len(s))
	}
}
