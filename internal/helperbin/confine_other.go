//go:build !darwin

package helperbin

import "os/exec"

// Confine leaves cmd as it is: on Linux each helper confines itself
// (internal/confine, Landlock), and Windows offers a helper nothing in
// reach (it runs unconfined; ROUGH_EDGES.md says so).
func Confine(*exec.Cmd) {}
