package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// SupervisorAttr sets what the supervisor needs on a's process: its own
// session (and so process group, without a controlling terminal: what it
// runs cannot read the person's keys or type into the editor's terminal),
// and SIGTERM when its parent dies.
func SupervisorAttr(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setsid, a.Setpgid = true, false // setpgid fails in a session it leads
	a.Pdeathsig = syscall.SIGTERM
	return a
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// becomeSubreaper makes this process a child subreaper: it inherits every
// descendant whose parent exits.
func becomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("cannot become a child subreaper: %v", errno)
	}
	return nil
}

// parentExit is nil here: the parent-death signal (SupervisorAttr) and
// the poll of getppid tell the supervisor its parent is gone.
func parentExit(int) <-chan struct{} { return nil }

// children lists this process's direct children (every thread's), from
// /proc/self/task/*/children; nil when the kernel has no such files.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var out []int
	found := false
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		found = true
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	if !found {
		return nil
	}
	if out == nil {
		out = []int{}
	}
	return out
}

// processes reads the process table from /proc.
func processes() []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session … starttime (the 22nd field,
		// in clock ticks since boot) …: comm may hold spaces and
		// parentheses (proc_pid_stat(5)).
		rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 20 {
			continue
		}
		ppid, err1 := strconv.Atoi(fields[1])
		pgid, err2 := strconv.Atoi(fields[2])
		sid, err3 := strconv.Atoi(fields[3])
		start, err4 := strconv.ParseInt(fields[19], 10, 64)
		if err1 == nil && err2 == nil && err3 == nil && err4 == nil {
			out = append(out, process{pid: pid, ppid: ppid, pgid: pgid, sid: sid, start: start + 1, zombie: fields[0] == "Z"}) // +1: 0 is unknown
		}
	}
	return out
}

// Self is the binary to start again as the sandbox's helper, the
// commands' supervisor and the namespace probe: the running binary
// itself (/proc/self/exe, which names this process's file even once its
// path holds another), so that a program a command put at the path, or a
// newer build installed there, never stands in for it. Without /proc, the
// path it was started from.
func Self() (string, error) {
	if _, err := os.Stat(selfExe); err == nil {
		return selfExe, nil
	}
	return os.Executable()
}

const selfExe = "/proc/self/exe"
