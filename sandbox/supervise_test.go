//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestSupervise_CommandCannotEndItsSupervisor: a sandboxed command that
// starts a process outside its group (setsid) and then signals its
// supervisor, in every spelling (kill, a stop, a signal to its whole
// group, a pidfd), neither ends nor stops the supervisor, which kills the
// escapee when the command exits. A supervisor the command could end
// would leave the escapee running, reparented to init.
func TestSupervise_CommandCannotEndItsSupervisor(t *testing.T) {
	if ABI() < 6 {
		t.Fatal("Landlock ABI 6 or later is needed for signal scoping (platform-notes.md: ABI 7)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct{ name, attack string }{
		{"kill -9", "kill -9 $PPID"},
		{"kill -STOP", "kill -STOP $PPID"},
		{"the whole group", "kill -9 0"},
		{"by pidfd", `python3 -c 'import os, signal, sys; signal.pidfd_send_signal(os.pidfd_open(int(sys.argv[1])), 9)' $PPID`},
		{"through a helper process", `perl -e 'kill "KILL", $ARGV[0]' $PPID`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := strconv.Itoa(7811 + i)
			proctest.Sweep(t, "sleep\x00"+marker)
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			script := "(setsid sleep " + marker + " </dev/null >/dev/null 2>&1 &); " +
				"for i in $(seq 200); do pgrep -f '^sleep " + marker + "$' >/dev/null && break; sleep 0.05; done; " +
				tc.attack + "; echo after-attack"
			cmd, out := supervisedCommand(t, self, dir, script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second): // a stopped supervisor never ends
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
				t.Fatalf("the supervisor did not end within 30 s:\n%s", out.String())
			}
			if !proctest.Gone("sleep\x00" + marker) {
				t.Errorf("the escapee outlived its supervisor (err %v):\n%s", err, out.String())
			}
			if tc.name != "the whole group" && (err != nil || !strings.Contains(out.String(), "after-attack")) {
				t.Errorf("the command did not go on after the attack: err %v, want nil\n%s", err, out.String())
			}
		})
	}
}

// TestSupervise_ForkHopperDies: a process that forks and exits its parent
// as fast as it can, so that its pid is never the one a scan of /proc
// saw, is still killed when its command ends: the supervisor, a child
// subreaper, inherits each hop and stops only when it has no child left.
func TestSupervise_ForkHopperDies(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	survived := filepath.Join(dir, "survived")
	// It hops for a second, then, if still alive, says so and waits.
	hopper := `import os, sys, time
os.setsid()
end = time.time() + 1
while time.time() < end:
    if os.fork() > 0:
        os._exit(0)
open(sys.argv[1], "w").write("alive")
time.sleep(10)
`
	marker := "7931"
	proctest.Sweep(t, "hopper-"+marker)
	script := "python3 -c '" + hopper + "' " + survived + " hopper-" + marker + " & sleep 0.2; echo started"
	cmd, out := supervisedCommand(t, self, dir, script)
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "started") {
		t.Fatalf("the command: %v\n%s", err, out.String())
	}
	// A hop that escaped writes survived once its second is over.
	for range 100 {
		if _, err := os.Stat(survived); err == nil {
			t.Fatal("the fork hopper outlived its supervisor")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// supervisedCommand is bash -c script under the supervisor, sandboxed to
// write only dir, as LocalHost starts a command; out collects its output.
func supervisedCommand(t *testing.T, self, dir, script string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	argv, err := Wrap(self, Profile{Write: []string{dir}}, []string{"bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	argv = Supervised(self, argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = SupervisorAttr(SysProcAttr(Profile{Write: []string{dir}}))
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	return cmd, out
}
