// Package helperbin finds and starts dsh-bridge's helper binaries
// (dsh-highlight, dsh-code, dsh-markdown), which are installed next to it.
package helperbin

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Locate finds helper name: $env (a path; "off" disables it), else name
// next to this executable (symlinks resolved), else name on $PATH. Empty
// when there is none.
func Locate(name, env string) string {
	if v, ok := os.LookupEnv(env); ok {
		if v == "off" {
			return ""
		}
		return v
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// Start starts cmd with a pipe to its stdin and one from its stdout.
func Start(cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser, err error) {
	if stdin, err = cmd.StdinPipe(); err != nil {
		return nil, nil, err
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, nil, err
	}
	if err = cmd.Start(); err != nil {
		return nil, nil, err
	}
	return stdin, stdout, nil
}

// SysProcAttr kills a helper with its parent, whatever way the parent
// ends.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
