//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: its master, and its slave's path.
func openPTY() (*os.File, string, error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, "", err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, "", err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, "", err
	}
	return m, fmt.Sprintf("/dev/pts/%d", n), nil
}

// ttyProbe is what the sandboxed command runs (probe "type:SLAVE"): it
// tries to type into its controlling terminal through /dev/tty, then
// into the terminal at SLAVE's path, and prints what it managed.
func ttyProbe(slave string) {
	typeInto := func(path string) string {
		f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
		if err != nil {
			return "no " + path
		}
		defer f.Close()
		for _, c := range []byte("evil\n") {
			b := c
			if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), unix.TIOCSTI, uintptr(unsafe.Pointer(&b))); errno != 0 {
				return "refused " + path + ": " + errno.Error()
			}
		}
		return "typed into " + path
	}
	fmt.Println(typeInto("/dev/tty"))
	fmt.Println(typeInto(slave))
	os.Exit(0)
}

// sessionProbe (probe "session:SUPERVISED:SLAVE") stands for an editor
// in a terminal: a session leader whose controlling terminal is the pty,
// running the sandboxed ttyProbe as dsh-bridge runs commands. It then
// reads what reached the terminal's input.
func sessionProbe(supervised bool, slave string) {
	self, _ := os.Executable()
	dir, _ := os.MkdirTemp("", "dsh-tty")
	defer os.RemoveAll(dir)
	p := Profile{Write: []string{dir}}
	argv, _ := Wrap(self, p, []string{self})
	attr := SysProcAttr(p)
	if supervised {
		argv, attr = Supervised(self, argv), SupervisorAttr(attr)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = attr
	cmd.Env = append(os.Environ(), "DSH_TEST_PROBE=type:"+slave)
	out, err := cmd.CombinedOutput()
	fmt.Printf("%s(err %v)\n", out, err)
	// Whatever was typed waits in the terminal's input: read it.
	unix.SetNonblock(0, true)
	time.Sleep(50 * time.Millisecond)
	b := make([]byte, 64)
	n, _ := syscall.Read(0, b)
	fmt.Printf("input: %q\n", b[:max(n, 0)])
	os.Exit(0)
}

// TestTerminal_NoTyping: a sandboxed command started by a process that
// has a terminal (an editor run in one) can neither reach that terminal
// through /dev/tty (it runs in a session of its own) nor type into it
// (TIOCSTI is refused, even by path and for root), run by the helper or
// the supervisor. Typed input would be read by the editor, or the shell
// after it, and run outside the sandbox.
func TestTerminal_NoTyping(t *testing.T) {
	if ABI() == 0 {
		t.Fatal("no Landlock")
	}
	self, _ := os.Executable()
	for _, supervised := range []bool{false, true} {
		t.Run(fmt.Sprintf("supervised=%v", supervised), func(t *testing.T) {
			master, slave, err := openPTY()
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			tty, err := os.OpenFile(slave, os.O_RDWR|syscall.O_NOCTTY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer tty.Close()
			// Raw enough: no echo, input readable byte by byte.
			tio, _ := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			tio.Lflag &^= unix.ECHO | unix.ICANON
			unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio)
			editor := exec.Command(self)
			editor.Env = append(os.Environ(), fmt.Sprintf("DSH_TEST_PROBE=session:%v:%s", supervised, slave))
			editor.Stdin = tty
			var out strings.Builder
			editor.Stdout, editor.Stderr = &out, &out
			editor.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := editor.Run(); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			got := out.String()
			if !strings.Contains(got, "no /dev/tty") {
				t.Errorf("the command reached the editor's terminal through /dev/tty:\n%s", got)
			}
			if strings.Contains(got, "typed into") || !strings.Contains(got, `input: ""`) {
				t.Errorf("the command typed into the editor's terminal:\n%s", got)
			}
		})
	}
}
