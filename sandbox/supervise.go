package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
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
// process group, and SIGTERM when its parent dies.
func SupervisorAttr(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setpgid = true
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
func supervise(ppid int, argv []string) error {
	// Landlock gives every thread its own domain, and with signal scoping a
	// domain may only signal its own or nested ones: the command must be
	// started, and its group killed, from the thread that entered the
	// sandbox. This goroutine keeps that thread for the process's life.
	runtime.LockOSThread()
	if syscall.Getpgrp() != os.Getpid() {
		// Never kill a group it does not lead (someone ran it by hand).
		if err := syscall.Setpgid(0, 0); err != nil {
			return fmt.Errorf("cannot lead a process group: %w", err)
		}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	killGroup := func() { _ = syscall.Kill(-os.Getpid(), syscall.SIGKILL) }
	if os.Getppid() != ppid { // the parent died before the death signal was armed
		killGroup()
	}
	if len(argv) >= 4 && argv[1] == HelperArg && argv[3] == "--" {
		// A sandboxed command (Wrap): enter the sandbox here rather than
		// start the helper as one more process. The supervisor only waits
		// and signals its own group, which the sandbox allows.
		if err := enter(argv[2]); err != nil {
			return err
		}
		argv = argv[4:]
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
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
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					signal.Reset()
					_ = syscall.Kill(os.Getpid(), ws.Signal())
					time.Sleep(time.Second) // the signal ends the process
				}
				os.Exit(ee.ExitCode())
			}
			if err != nil {
				return err
			}
			os.Exit(0)
		}
	}
}

func runSupervisor(args []string) {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: "+SuperviseArg+" PPID -- COMMAND [ARG…]")
		os.Exit(126)
	}
	ppid, err := strconv.Atoi(args[0])
	if err == nil {
		err = supervise(ppid, args[2:])
	}
	fmt.Fprintf(os.Stderr, "dsh-bridge supervisor: %v\n", err)
	os.Exit(126)
}
