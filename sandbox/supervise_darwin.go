package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// SupervisorAttr sets what the supervisor needs on a's process: its own
// session (and so process group, without a controlling terminal). macOS
// has no parent-death signal: the supervisor watches its parent itself
// (parentExit).
func SupervisorAttr(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	if a == nil {
		a = &syscall.SysProcAttr{}
	}
	a.Setsid, a.Setpgid = true, false // setpgid fails in a session it leads
	return a
}

// becomeSubreaper does nothing: macOS has no child subreapers, and a
// descendant whose parent exits goes to launchd. killAll still finds one
// whose ancestors live by walking the process table.
func becomeSubreaper() error { return nil }

// children is nil: macOS has no list of a process's children to read
// cheaply, and killAll walks the whole table instead.
func children() []int { return nil }

// parentExit returns a channel closed when process ppid exits (kqueue's
// EVFILT_PROC with NOTE_EXIT), or nil when it cannot watch it (then the
// supervisor's poll of getppid notices). The watching goroutine ends with
// the process: the supervisor exits once its parent is gone.
func parentExit(ppid int) <-chan struct{} {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil
	}
	ev := []unix.Kevent_t{{}}
	unix.SetKevent(&ev[0], ppid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev[0].Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, ev, nil, nil); err != nil {
		unix.Close(kq) // ESRCH: gone already, which the first getppid check sees
		return nil
	}
	gone := make(chan struct{})
	go func() {
		defer unix.Close(kq)
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			if err == unix.EINTR {
				continue
			}
			if err == nil && n > 0 {
				close(gone)
			}
			return
		}
	}()
	return gone
}

// processes reads the process table (sysctl kern.proc.all; a session's
// id by getsid, which kinfo_proc holds only as a kernel pointer). It only
// reads: descendantsOf decides.
func processes() []process {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]process, 0, len(procs))
	for _, p := range procs {
		pid := int(p.Proc.P_pid)
		sid, err := unix.Getsid(pid)
		if err != nil {
			sid = -1 // gone, or not ours to ask: in no session of ours
		}
		out = append(out, process{pid: pid, ppid: int(p.Eproc.Ppid), pgid: int(p.Eproc.Pgid), sid: sid,
			start: p.Proc.P_starttime.Nano(), zombie: p.Proc.P_stat == sZomb})
	}
	return out
}

// sZomb is <sys/proc.h>'s SZOMB: a process that ended and waits to be
// reaped.
const sZomb = 5

// Self is the binary to start again as the commands' supervisor: the
// path this one was started from (macOS has no /proc/self/exe).
func Self() (string, error) { return os.Executable() }
