//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Sockets are a way out of a Landlock sandbox that its file rules do not
// close: connecting to a named UNIX socket needs no file right, and behind
// one may sit a process that runs whatever it is asked to — the editor
// (Neovim's $NVIM, VS Code's IPC hook), tmux (send-keys into the person's
// shell), the session's D-Bus and systemd (systemd-run), Docker (root on
// the host), the X server (typing into a terminal). And UDP reaches the
// resolver (a DNS query carries data out), which Landlock's TCP rules do
// not cover.
//
// So, when the profile has no network, the helper adds a seccomp filter
// before the command starts: connect(2) fails with EPERM, and so does
// socket(2) for every family but UNIX and netlink. A command may still
// make UNIX sockets, bind and listen on them and use socketpairs (pipes
// between its own processes; Chromium's singleton socket), but it cannot
// connect to anyone's. io_uring, which can connect past seccomp, is
// refused in every profile, and so are the 32-bit and x32 ways to make a
// socket or connect one. So is the ioctl that types into a terminal
// (TIOCSTI): a command that reached the editor's terminal could type a
// command line for the editor or the shell behind it to run.
//
// With the network allowed, sockets are not filtered (connect is TCP's
// too, and seccomp cannot tell the families of a connect apart): the
// editor's, tmux's and D-Bus's sockets stay reachable then, and the
// session's notice says so.

// seccomp_data's offsets: the syscall number, the architecture, and the
// low halves of the first two arguments (little endian).
const (
	offNR   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// sysABI is what the filter needs to know of this machine's system calls.
type sysABI struct {
	arch                   uint32 // the audit architecture of this binary's calls
	socket, connect, ioctl uint32 // their numbers
	// foreign is the 32-bit ABI the kernel also runs, with the numbers that
	// make or connect a socket in it (socketcall(2) among them) and ioctl's.
	foreign       uint32
	foreignSocket []uint32
	foreignIoctl  uint32
}

// nativeABI returns this machine's system call ABI, false where the filter is not
// written for it.
func nativeABI() (sysABI, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return sysABI{unix.AUDIT_ARCH_X86_64, 41, 42, 16, unix.AUDIT_ARCH_I386, []uint32{102, 359, 362}, 54}, true
	case "arm64":
		return sysABI{unix.AUDIT_ARCH_AARCH64, 198, 203, 29, unix.AUDIT_ARCH_ARM, []uint32{281, 283}, 54}, true
	}
	return sysABI{}, false
}

// ioUringSetup is io_uring_setup(2)'s number, the same in every ABI.
const ioUringSetup = 425

// x32Bit marks a system call of the x32 ABI (on amd64).
const x32Bit = 0x40000000

// The ioctls that type into a terminal as if its user had: TIOCSTI
// pushes a byte into its input, TIOCLINUX (on a console) pastes.
const (
	tiocsti   = 0x5412
	tioclinux = 0x541C
)

// socketFilter returns the seccomp program: see the comment above.
func socketFilter(network bool) ([]bpf.RawInstruction, error) {
	m, ok := nativeABI()
	if !ok {
		return nil, fmt.Errorf("no socket filter for %s", runtime.GOARCH)
	}
	var a program
	a.load(offArch)
	a.jump(bpf.JumpEqual, m.arch, "", "foreign")
	a.load(offNR)
	a.jump(bpf.JumpBitsSet, x32Bit, "deny", "")
	a.jump(bpf.JumpEqual, ioUringSetup, "deny", "")
	a.jump(bpf.JumpEqual, m.ioctl, "tty", "")
	if network {
		a.ret(unix.SECCOMP_RET_ALLOW)
	} else {
		a.jump(bpf.JumpEqual, m.connect, "deny", "")
		a.jump(bpf.JumpEqual, m.socket, "", "allow")
		a.load(offArg0)
		a.jump(bpf.JumpEqual, unix.AF_UNIX, "allow", "")
		a.jump(bpf.JumpEqual, unix.AF_NETLINK, "allow", "deny")
	}
	a.label("foreign") // the accumulator still holds the architecture
	a.jump(bpf.JumpEqual, m.foreign, "", "allow")
	a.load(offNR)
	a.jump(bpf.JumpEqual, ioUringSetup, "deny", "")
	a.jump(bpf.JumpEqual, m.foreignIoctl, "tty", "")
	if !network {
		for _, nr := range m.foreignSocket {
			a.jump(bpf.JumpEqual, nr, "deny", "")
		}
	}
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("tty") // an ioctl: its request is a 32-bit number
	a.load(offArg1)
	a.jump(bpf.JumpEqual, tiocsti, "deny", "")
	a.jump(bpf.JumpEqual, tioclinux, "deny", "allow")
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("deny")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	return a.assemble()
}

// program is a BPF program with named jump targets.
type program struct {
	ins    []bpf.Instruction
	labels map[string]int
	jumps  []jump
}

// jump is a conditional jump's index and its targets ("": the next one).
type jump struct {
	at          int
	ifTrue, ifF string
}

func (a *program) load(off uint32) { a.ins = append(a.ins, bpf.LoadAbsolute{Off: off, Size: 4}) }
func (a *program) ret(v uint32)    { a.ins = append(a.ins, bpf.RetConstant{Val: v}) }

func (a *program) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

func (a *program) jump(cond bpf.JumpTest, val uint32, ifTrue, ifFalse string) {
	a.jumps = append(a.jumps, jump{len(a.ins), ifTrue, ifFalse})
	a.ins = append(a.ins, bpf.JumpIf{Cond: cond, Val: val})
}

// assemble resolves the jumps (forward only, as BPF allows) and assembles.
func (a *program) assemble() ([]bpf.RawInstruction, error) {
	skip := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := a.labels[label]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("bad jump from %d to %q", from, label)
		}
		return uint8(to - from - 1), nil
	}
	for _, j := range a.jumps {
		ji := a.ins[j.at].(bpf.JumpIf)
		var err error
		if ji.SkipTrue, err = skip(j.at, j.ifTrue); err != nil {
			return nil, err
		}
		if ji.SkipFalse, err = skip(j.at, j.ifF); err != nil {
			return nil, err
		}
		a.ins[j.at] = ji
	}
	return bpf.Assemble(a.ins)
}

// filterSockets installs the socket filter on the calling thread, which
// must be locked to it: the command it starts inherits the filter, and
// cannot remove it. It sets no-new-privileges on the thread first, as
// seccomp requires of a process that is not privileged.
func filterSockets(network bool) error {
	raw, err := socketFilter(network)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no-new-privileges: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("installing the socket filter: %w", err)
	}
	runtime.KeepAlive(filter)
	return nil
}
