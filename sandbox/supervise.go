//go:build linux || darwin

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

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
	if err := becomeSubreaper(); err != nil {
		return err
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
	parentGone := parentExit(ppid)
	tick := time.NewTicker(parentPoll)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
			killGroup()
		case <-parentGone:
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

// descendants lists the live descendants of pid.
func descendants(pid int) []int { return descendantsOf(pid, processes()) }
