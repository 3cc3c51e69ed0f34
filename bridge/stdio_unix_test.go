//go:build unix

package bridge_test

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// socketStdio gives the bridge a stream socket pair for stdin and one for
// stdout, blocking on its side, as editors built on libuv do (VS Code's
// Node, Neovim's jobstart); Go's os/exec, and so startEditor, gives
// pipes. sndbuf, when not 0, sets the send buffer of the bridge's stdout
// (Linux's default is some 200 KB, macOS's 8 KB). The returned function
// gives the editor's ends.
func socketStdio(sndbuf int) func(testing.TB, *exec.Cmd) (io.WriteCloser, io.Reader) {
	return func(t testing.TB, cmd *exec.Cmd) (io.WriteCloser, io.Reader) {
		pair := func() (ours, theirs *os.File) {
			// macOS has no SOCK_CLOEXEC: the fork lock keeps the two ends
			// out of any child started before they are close-on-exec.
			syscall.ForkLock.RLock()
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err == nil {
				syscall.CloseOnExec(fds[0])
				syscall.CloseOnExec(fds[1])
			}
			syscall.ForkLock.RUnlock()
			if err != nil {
				t.Fatal(err)
			}
			return os.NewFile(uintptr(fds[0]), "editor"), os.NewFile(uintptr(fds[1]), "bridge")
		}
		in, childIn := pair()
		out, childOut := pair()
		if sndbuf != 0 {
			syscall.SetsockoptInt(int(childOut.Fd()), syscall.SOL_SOCKET, syscall.SO_SNDBUF, sndbuf)
		}
		cmd.Stdin, cmd.Stdout = childIn, childOut
		t.Cleanup(func() { childIn.Close(); childOut.Close(); out.Close() }) // after the editor's close: the bridge has exited
		return in, out
	}
}

// mkfifo makes a FIFO at path.
func mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// setUmask sets the process's umask to mask until t ends.
func setUmask(t testing.TB, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}
