package winjob

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// roleVar makes the test binary a process of the tree under test: a
// "grandchild" sleeps; a "child" starts a grandchild, prints its pid and
// sleeps; an "owner" starts a child in a job of its own, prints the
// child's and the grandchild's pids and sleeps.
const roleVar = "DSH_WINJOB_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleVar) {
	case "grandchild":
		time.Sleep(10 * time.Minute)
		os.Exit(0)
	case "child":
		g := helper("grandchild")
		if err := g.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(g.Process.Pid)
		time.Sleep(10 * time.Minute)
		os.Exit(0)
	case "owner":
		j, err := New()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		c := helper("child")
		out, _ := c.StdoutPipe()
		if err := j.Start(c); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		fmt.Println(c.Process.Pid, strings.TrimSpace(line))
		time.Sleep(10 * time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(role string) *exec.Cmd {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), roleVar+"="+role)
	return c
}

// open holds a handle on each pid, so a pid reused later cannot pass
// for one of the tree's.
func open(t *testing.T, fields []string) []windows.Handle {
	t.Helper()
	var hs []windows.Handle
	for _, f := range fields {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("not a pid: %q", f)
		}
		h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
		if err != nil {
			t.Fatalf("opening process %d: %v", pid, err)
		}
		t.Cleanup(func() { windows.TerminateProcess(h, 9); windows.CloseHandle(h) })
		hs = append(hs, h)
	}
	return hs
}

// ended reports whether the process has ended, waiting up to 20 s
// (a bound for a loaded machine, not a measurement).
func ended(h windows.Handle) bool {
	ev, _ := windows.WaitForSingleObject(h, 20_000)
	return ev == windows.WAIT_OBJECT_0
}

// running reports whether the process is still running now.
func running(h windows.Handle) bool {
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == uint32(windows.WAIT_TIMEOUT)
}

// TestJob_EndsTheTree starts a command that starts a grandchild, and
// ends the job each way it can end: every process of the tree ends.
func TestJob_EndsTheTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, j *Job, owner *exec.Cmd)
	}{
		{"Close", func(t *testing.T, j *Job, _ *exec.Cmd) {
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"Kill", func(t *testing.T, j *Job, _ *exec.Cmd) {
			if err := j.Kill(); err != nil {
				t.Fatal(err)
			}
		}},
		{"the owner is killed", func(t *testing.T, _ *Job, owner *exec.Cmd) {
			if err := owner.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var j *Job
			var c *exec.Cmd
			if tc.name == "the owner is killed" {
				c = helper("owner") // the job is the owner's, held by no one else
			} else {
				var err error
				if j, err = New(); err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				c = helper("child")
			}
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if j != nil {
				err = j.Start(c)
			} else {
				err = c.Start()
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Process.Kill(); c.Wait() }) // after open's: the tree is gone by then
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || strings.HasPrefix(line, "error") {
				t.Fatalf("the tree did not start: %q %v", line, err)
			}
			fields := strings.Fields(line)
			if j == nil {
				fields = fields[1:] // the owner's child and grandchild
			} else {
				fields = append([]string{strconv.Itoa(c.Process.Pid)}, fields...)
			}
			hs := open(t, fields)
			for i, h := range hs {
				if !running(h) {
					t.Fatalf("process %s ended before the job did", fields[i])
				}
			}
			tc.end(t, j, c)
			for i, h := range hs {
				if !ended(h) {
					t.Errorf("process %s still runs after the job ended", fields[i])
				}
			}
		})
	}
}

// TestJob_StartAfterClose: a closed job starts nothing, and the command
// it refused does not run.
func TestJob_StartAfterClose(t *testing.T) {
	j, err := New()
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	c := helper("grandchild")
	err = j.Start(c)
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("got %v, want an error saying the job is closed", err)
	}
	if c.ProcessState == nil {
		t.Fatal("the refused command was not waited for")
	}
}
