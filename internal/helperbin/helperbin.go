// Package helperbin finds and starts dsh-bridge's helper binaries
// (dsh-highlight, dsh-code), which are installed next to it.
package helperbin

import (
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

// SysProcAttr kills a helper with its parent, whatever way the parent
// ends.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
