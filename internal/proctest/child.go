package proctest

import (
	"os"
	"os/exec"
)

// Child runs this test binary again, running only the test named test,
// with env added to the environment (the child's side of the test checks
// for it), and returns what it printed. Tests use it for what must happen
// in a process of its own: confining itself, changing its priority.
func Child(test string, env ...string) ([]byte, error) {
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	return cmd.CombinedOutput()
}
