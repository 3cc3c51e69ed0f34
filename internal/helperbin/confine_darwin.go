package helperbin

import (
	"os/exec"
	"path/filepath"

	"github.com/dsh-bridge/dsh-bridge/sandbox"
)

// Confine puts the helper cmd (as exec.Command built it, not started)
// under Seatbelt: a helper cannot confine itself on macOS (sandbox_init
// needs cgo), so it is started through sandbox-exec with the helper
// profile (sandbox.WrapHelper: no writing, no network, no reading of the
// person's files). Without sandbox-exec, or a helper path that does not
// resolve, cmd is left as it is and the helper runs unconfined.
func Confine(cmd *exec.Cmd) {
	if !sandbox.Available() {
		return
	}
	real, err := filepath.EvalSymlinks(cmd.Path)
	if err != nil {
		return
	}
	argv := sandbox.WrapHelper(real, cmd.Args)
	cmd.Path, cmd.Args = argv[0], argv
}
