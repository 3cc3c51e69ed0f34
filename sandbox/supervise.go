package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SuperviseArg is the first argument that turns a dsh-bridge process into
// a command's supervisor: started as the leader of the command's process
// group, with a parent-death signal, it runs the command and kills the
// whole group the moment dsh-bridge is gone, however it went (kill -9
// included), so that no command or background job outlives the agent.
const SuperviseArg = "__dsh-supervise"

// Supervised returns argv run under the supervisor of binary self (which
// calls Main first). The process must be started with SupervisorAttr.
func Supervised(self string, argv []string) []string {
	return append([]string{self, SuperviseArg, strconv.Itoa(os.Getpid()), "--"}, argv...)
}

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

// parentPoll is how often the supervisor also checks that its parent is
// alive (the death signal is tied to the thread that forked it).
const parentPoll = 500 * time.Millisecond

// supervise runs argv (a command, or a command wrapped for the sandbox
// helper) in this process group and ends the group when the
// parent (pid ppid) goes or a termination signal arrives. It mirrors the
// command's exit: its code, or its signal.
//
// The supervisor itself never enters the sandbox: a sandboxed command is
// started through the helper (Wrap), which enters it in a process of its
// own, so that the command's Landlock domain is one the supervisor is
// outside of. With signal scoping (Landlock ABI 6 or later) the command
// can then neither signal nor trace its supervisor, which can signal it;
// sharing the supervisor's domain, it could SIGKILL the supervisor and
// leave a process that left the group running.
func supervise(ppid int, argv []string, stdio Stdio) error {
	if syscall.Getpgrp() != os.Getpid() {
		// Never kill a group it does not lead (someone ran it by hand).
		if err := syscall.Setpgid(0, 0); err != nil {
			return fmt.Errorf("cannot lead a process group: %w", err)
		}
	}
	// As a child subreaper, the supervisor inherits every descendant whose
	// parent exits, so one that left the group (setsid, a daemon's double
	// fork) still hangs below it and is found by killAll.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("cannot become a child subreaper: %v", errno)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	killGroup := func() { killAll(true) }
	if os.Getppid() != ppid { // the parent died before the death signal was armed
		killGroup()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, stdio.Err
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(parentPoll)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
			killGroup()
		case <-tick.C:
			if os.Getppid() != ppid {
				killGroup()
			}
		case err := <-exited:
			killAll(false) // nothing the command started outlives it
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				return err
			}
			mirrorExit(err)
		}
	}
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// killAll kills every descendant of this process — its process group and,
// through the /proc tree, those that left it — and, with self, this
// process too (last). As a child subreaper this process inherits every
// descendant whose parent dies, so it is done only when it has no child
// left, zombies reaped: a process that forks and exits faster than a scan
// of /proc (a "pid hopper") lands among its direct children, which are
// read in one small file and killed at once, each round faster than a
// fork. It gives up after killBound.
func killAll(self bool) {
	deadline := time.Now().Add(killBound)
	for round := 0; time.Now().Before(deadline); round++ {
		pids := children()
		if pids == nil || round%16 == 0 {
			pids = append(pids, descendants(os.Getpid())...) // grandchildren whose parents live, or no children file
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if !reap() {
			break // no child at all: nothing is left below this process
		}
	}
	if self {
		_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL)
	}
}

// killBound is how long killAll keeps killing a tree that keeps forking.
const killBound = 5 * time.Second

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

// reap collects every child that has ended, and reports whether any
// child (ended or not) is left.
func reap() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return false
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil || pid == 0:
			return true // children left, none ended yet
		}
	}
}

// descendants lists the live descendants of pid, from /proc.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 || fields[0] == "Z" {
			continue // a zombie is already dead
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			children[ppid] = append(children[ppid], child)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func runSupervisor(args []string, stdio Stdio) {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(stdio.Err, "usage: "+SuperviseArg+" PPID -- COMMAND [ARG…]")
		os.Exit(126)
	}
	ppid, err := strconv.Atoi(args[0])
	if err == nil {
		err = supervise(ppid, args[2:], stdio)
	}
	fmt.Fprintf(stdio.Err, "dsh-bridge supervisor: %v\n", err)
	os.Exit(126)
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
