//go:build unix

// The bash tool's tests in bash syntax, with Unix programs (sleep, kill,
// head): Windows without Git's bash runs commands with cmd.exe, and
// bash_windows_test.go tests that.

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

func TestBash(t *testing.T) {
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			for _, tc := range []struct {
				name, cmd, extra string
				golden           bool
				code, msg        string
			}{
				{"stdout", "echo hello", "", true, "", ""},
				{"stderr and exit code", "echo out; echo oops >&2; exit 3", "", true, "", ""},
				{"no output", "true", "", true, "", ""},
				{"stderr only", "echo bad >&2; exit 1", "", true, "", ""},
				{"killed by signal", "kill -TERM $$", "", true, "", ""},
				{"timeout", "echo started; sleep 30", `,"timeoutMs":2000`, true, "", ""}, // room for a loaded machine to start the shell
				{"workdir", "pwd", `,"workdir":"sub"`, false, "", ""},
				{"blank command", " ", "", false, "", "command must be a non-empty string"},
				{"non-positive timeout", "true", `,"timeoutMs":0`, false, "", "timeoutMs must be a positive number"},
				{"missing workdir", "true", `,"workdir":"nope"`, false, "FS_NOT_DIRECTORY", "not a directory"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e := newEnv(t, h.make())
					os.Mkdir(filepath.Join(e.dir, "sub"), 0o755)
					r := e.call("bash", bashArgsJSON(tc.cmd, tc.extra))
					if tc.msg != "" {
						wantErr(t, r, tc.code, tc.msg)
						return
					}
					got := wantOK(t, r)
					if tc.golden {
						e.golden(got)
					}
					if tc.name == "workdir" && strings.TrimSpace(got) != filepath.Join(e.dir, "sub") {
						t.Errorf("pwd %q", got)
					}
				})
			}
		})
	}
}

func TestBash_Cards(t *testing.T) {
	e := newEnv(t, LocalHost{})
	for _, tc := range []struct {
		cmd      string
		exitCode int
		signal   string
		output   string
	}{
		{"echo hi", 0, "", "hi\n"},
		{"echo hi; exit 4", 4, "", "hi"},
		{"kill -KILL $$", 0, "SIGKILL", "(no output)"},
	} {
		args := bashArgsJSON(tc.cmd, "")
		r := e.call("bash", args)
		call, res := e.presenters("bash", args, r)
		if term, ok := call.(*card.Terminal); !ok || term.Title != tc.cmd {
			t.Errorf("call card %#v", call)
		}
		tr, ok := res.(*card.TerminalResult)
		if !ok || tr.Output != tc.output || tr.Signal != tc.signal || (tc.signal == "" && (tr.ExitCode == nil || *tr.ExitCode != tc.exitCode)) {
			t.Errorf("%q: result card %+v", tc.cmd, res)
		}
	}
	bg := bashArgsJSON("sleep 1", `,"run_in_background":true`)
	call, _ := e.presenters("bash", bg, e.call("bash", bg))
	if g, ok := call.(*card.Generic); !ok || g.Kind != card.KindExecute {
		t.Errorf("background call card %#v", call)
	}
	if e.reg.ExecutionMode("bash", mustArgs(bashArgsJSON("ls", "")), e.scope).String() != "exclusive" {
		t.Errorf("bash must be exclusive")
	}
}

func TestBash_OutputCap(t *testing.T) {
	e := newEnv(t, LocalHost{})
	r := e.call("bash", bashArgsJSON("head -c 100000 /dev/zero | tr '\\0' a", ""))
	got := wantOK(t, r)
	if !strings.Contains(got, "\n[output truncated; full output: ") || len(got) > BashOutputCap+500 {
		t.Fatalf("no truncation marker or too long (%d bytes)", len(got))
	}
	path := got[strings.Index(got, "full output: ")+len("full output: ") : len(got)-1]
	data, err := os.ReadFile(path)
	os.Remove(path)
	if err != nil || len(data) != 100000 {
		t.Errorf("spill file %q: %d bytes, %v", path, len(data), err)
	}
}

// TestBash_NothingLeftRunning proves the whole process group dies on
// cancellation, on timeout and when the shell exits early.
func TestBash_NothingLeftRunning(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		extra  string
		cancel bool
	}{
		{"cancelled", "sleep 7771 & sleep 7772; wait", "", true},
		{"timed out", "echo up; sleep 7773 & sleep 7774; wait", `,"timeoutMs":1500`, false},
		{"shell exited with a child in the background", "sleep 7775 & echo left it running", "", false},
		{"a child that left the process group", "setsid sleep 7778 & echo left it running", "", false},
		// Killed, the supervisor could not end a child outside the group.
		{"cancelled with a child that left the process group", "setsid sleep 7816 & " + untilRunning("7816") + "sleep 7772; wait", "", true},
		{"timed out with a child that left the process group", "setsid sleep 7817 & " + untilRunning("7817") + "echo up; sleep 7774; wait", `,"timeoutMs":1500`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proctest.Sweep(t, "sleep\x007771", "sleep\x007772", "sleep\x007773", "sleep\x007774", "sleep\x007775", "sleep\x007778", "sleep\x007816", "sleep\x007817")
			e := newEnv(t, LocalHost{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() { // cancel once the command really runs
					for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !processRunning("sleep\x007772"); {
						time.Sleep(10 * time.Millisecond)
					}
					cancel()
				}()
			}
			start := time.Now()
			r := e.callCtx(ctx, "bash", bashArgsJSON(tc.script, tc.extra))
			switch {
			case tc.cancel:
				wantErr(t, r, "ABORTED", "command aborted") // the tool's own abort error is kept
			case strings.HasPrefix(tc.name, "timed out"):
				if got := wantOK(t, r); !strings.Contains(got, "up") || !strings.Contains(got, "[timed out after 1500ms]") {
					t.Errorf("result %q", got)
				}
			default:
				if got := wantOK(t, r); !strings.Contains(got, "left it running") || strings.Contains(got, "exit code") {
					t.Errorf("result %q", got)
				}
			}
			if time.Since(start) > 12*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			first := strings.Fields(strings.SplitN(tc.script, "&", 2)[0])
			marker := first[len(first)-1]
			if !processGone("sleep\x00" + marker) {
				t.Errorf("a process of the group (sleep %s) is still running", marker)
			}
		})
	}
}

// untilRunning is a script's line that waits until sleep LENGTH runs.
func untilRunning(length string) string {
	return "until pgrep -f '^sleep " + length + "$' >/dev/null; do sleep 0.05; done; "
}

func TestJobs(t *testing.T) {
	e := newEnv(t, LocalHost{})
	// The job's sleep has a length no other test's has: the kill check
	// looks for it among every process on the machine, and the packages'
	// tests run at once (the bridge's Code Mode test sleeps 30 too).
	proctest.Sweep(t, "sleep\x007779")
	r := e.call("bash", bashArgsJSON("echo first; sleep 0.3; echo second; sleep 7779", `,"run_in_background":true`))
	if got := wantOK(t, r); got != "started background job job-1" {
		t.Fatalf("start: %q", got)
	}
	t.Run("output waits for new output", func(t *testing.T) {
		got := wantOK(t, e.call("job_output", `{"job_id":"job-1","wait":true,"timeout_ms":5000}`))
		if !strings.HasPrefix(got, "first\n") || !strings.HasSuffix(got, "[status: running]") {
			t.Errorf("first read %q", got)
		}
		got = wantOK(t, e.call("job_output", `{"job_id":"job-1","wait":true,"timeout_ms":5000}`))
		if got != "second\n[status: running]" {
			t.Errorf("second read %q", got)
		}
	})
	t.Run("wait times out with no new output", func(t *testing.T) {
		start := time.Now()
		got := wantOK(t, e.call("job_output", `{"job_id":"job-1","wait":true,"timeout_ms":200}`))
		if got != "(no new output)\n[status: running]" || time.Since(start) < 150*time.Millisecond {
			t.Errorf("got %q after %v", got, time.Since(start))
		}
	})
	t.Run("list", func(t *testing.T) {
		got := wantOK(t, e.call("job_list", `{}`))
		if !strings.HasPrefix(got, "job-1 [bash] running — echo first") {
			t.Errorf("list %q", got)
		}
	})
	t.Run("kill", func(t *testing.T) {
		got := wantOK(t, e.call("job_kill", `{"job_id":"job-1","reason":"done testing"}`))
		if !strings.HasPrefix(got, "job job-1: cancellation requested") {
			t.Errorf("kill %q", got)
		}
		got = wantOK(t, e.call("job_output", `{"job_id":"job-1","wait":true,"timeout_ms":5000}`))
		if !strings.HasSuffix(got, "[status: killed, done testing]") {
			t.Errorf("after kill %q", got)
		}
		if !processGone("sleep\x007779") {
			t.Errorf("the job's process is still running")
		}
		got = wantOK(t, e.call("job_kill", `{"job_id":"job-1"}`))
		if !strings.HasPrefix(got, "job job-1: already finished") {
			t.Errorf("second kill %q", got)
		}
	})
	t.Run("unknown job", func(t *testing.T) {
		wantErr(t, e.call("job_output", `{"job_id":"job-9"}`), "JOB_NOT_FOUND", `unknown background job "job-9"`)
	})
	t.Run("failed job reports its exit code", func(t *testing.T) {
		wantOK(t, e.call("bash", bashArgsJSON("exit 7", `,"run_in_background":true`)))
		got := wantOK(t, e.call("job_output", `{"job_id":"job-2","wait":true,"timeout_ms":5000}`))
		if got != "(no new output)\n[status: failed, exit code 7]" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("finalizeContent caps output", func(t *testing.T) {
		wantOK(t, e.call("bash", bashArgsJSON("head -c 100000 /dev/zero | tr '\\0' b; touch written.flag; sleep 30", `,"run_in_background":true`)))
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(e.dir, "written.flag")); err == nil {
				break // all the output is written
			}
		}
		got := wantOK(t, e.call("job_output", `{"job_id":"job-3"}`))
		if len(got) > JobOutputLimit+100 || !strings.HasPrefix(got, "[earlier output cut") {
			t.Errorf("uncapped: %d bytes", len(got))
		}
	})
}

func TestJobs_DieWithTheSession(t *testing.T) {
	e := newEnv(t, LocalHost{})
	jobs := NewJobs(LocalHost{})
	proctest.Sweep(t, "sleep\x007776")
	id, err := jobs.Start(context.Background(), "sleep 7776", e.dir)
	if err != nil || id != "job-1" {
		t.Fatal(id, err)
	}
	jobs.Close()
	if !processGone("sleep\x007776") {
		t.Errorf("a job outlived its session")
	}
	if _, err := jobs.Start(context.Background(), "true", e.dir); err != ErrJobsClosed {
		t.Errorf("start after close: %v", err)
	}
}

// TestBash_OutputCapEdge: a stream of exactly BashOutputCap bytes comes
// back whole and unmarked; one byte more is truncated to the cap, with
// the whole stream in the spill file.
func TestBash_OutputCapEdge(t *testing.T) {
	e := newEnv(t, LocalHost{})
	for _, tc := range []struct {
		name      string
		n         int
		truncated bool
	}{
		{"exactly at the cap", BashOutputCap, false},
		{"one past the cap", BashOutputCap + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call("bash", bashArgsJSON(fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a", tc.n), ""))
			got := wantOK(t, r)
			var v foregroundValue
			if err := r.Value.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if v.Stdout.SpillPath != "" {
				defer os.Remove(v.Stdout.SpillPath)
			}
			if v.Stdout.Truncated != tc.truncated {
				t.Errorf("got truncated %v, want %v", v.Stdout.Truncated, tc.truncated)
			}
			if want := strings.Repeat("a", min(tc.n, BashOutputCap)); v.Stdout.Text != want {
				t.Errorf("got %d bytes of output, want %d", len(v.Stdout.Text), len(want))
			}
			if marked := strings.Contains(got, "[output truncated; full output: "); marked != tc.truncated {
				t.Errorf("got the truncation marker %v, want %v (%d bytes)", marked, tc.truncated, len(got))
			}
			if !tc.truncated {
				if got != strings.Repeat("a", tc.n) {
					t.Errorf("got a rendering of %d bytes, want the %d bytes of output alone", len(got), tc.n)
				}
				return
			}
			data, err := os.ReadFile(v.Stdout.SpillPath)
			if err != nil || len(data) != tc.n {
				t.Errorf("spill file %q: %d bytes, %v; want %d", v.Stdout.SpillPath, len(data), err, tc.n)
			}
		})
	}
}
