package proctest

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
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

// InChild runs body in a child process: this test binary again, running
// only t's test with env ("KEY=value") added, which is how the child knows
// itself (there InChild runs body on the child's t). It fails t unless the
// child's run passed.
func InChild(t *testing.T, env string, body func(t *testing.T)) {
	if k, v, _ := strings.Cut(env, "="); v != "" && os.Getenv(k) == v {
		body(t)
		return
	}
	out, err := Child(t.Name(), env)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}

// WantConfined fails t unless this process can no longer read a file (its
// own executable): what a helper that confined itself must show.
func WantConfined(t *testing.T) {
	t.Helper()
	if _, err := os.ReadFile(os.Args[0]); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("read a file while confined: %v", err)
	}
}
