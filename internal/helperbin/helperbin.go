// Package helperbin finds and starts dsh-bridge's helper binaries
// (dsh-highlight, dsh-code, dsh-markdown), which are installed next to it.
package helperbin

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/internal/safepath"
)

// Off reports whether $env turns its helper off ("off"): what the helper
// does is then not done at all, not even where the bridge could do it
// without the helper.
func Off(env string) bool {
	v, ok := os.LookupEnv(env)
	return ok && v == "off"
}

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
		if p, ok := safepath.Program(filepath.Dir(exe), name); ok { // name.exe on Windows
			return p
		}
	}
	if p, err := safepath.LookPath(name); err == nil { // not one a command planted
		return p
	}
	return ""
}

// Start starts the helper cmd, confined where the bridge must confine it
// (Confine), with a pipe to its stdin and one from its stdout. The stdin
// pipe's owner closes it on every path, a failed start included
// (cmd.Wait does not, as it does an os/exec StdinPipe), and its Close may
// be called more than once.
func Start(cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser, err error) {
	Confine(cmd)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdin = pr
	if stdout, err = cmd.StdoutPipe(); err != nil {
		pr.Close()
		pw.Close()
		return nil, nil, err
	}
	err = cmd.Start()
	pr.Close() // the child has its copy
	if err != nil {
		pw.Close()
		return nil, nil, err
	}
	return &input{File: pw}, stdout, nil
}

// input is a helper's stdin, closed once.
type input struct {
	*os.File
	once sync.Once
	err  error
}

func (in *input) Close() error {
	in.once.Do(func() { in.err = in.File.Close() })
	return in.err
}
