package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// SupervisorAttr returns a as it is: Windows has no sessions or process
// groups to give the supervisor.
func SupervisorAttr(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	return a
}

// supervise runs argv and mirrors its exit. Nothing here yet ends what
// the command started when the parent goes.
func supervise(_ int, argv []string, stdio Stdio) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, stdio.Err
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return err
	}
	mirrorExit(err)
	return nil
}

// Self is the binary to start again as the commands' supervisor: the
// path this one was started from.
func Self() (string, error) { return os.Executable() }
