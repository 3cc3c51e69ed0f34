package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// MainWithHelper is a TestMain for tests that need one of the helper
// binaries: it builds the command pkg (a path relative to the test's
// package) as name in a temporary directory, statically as shipped,
// hands use the binary's path, runs the tests, checks that they leaked no
// goroutine when they passed, removes the directory and exits with the
// result. It never returns.
//
// Where $DSH_TEST_HELPERS names a folder, the helper is taken from it
// (name, or name.exe on Windows) instead: a test binary run where there
// is no Go toolchain (Windows under Wine, internal/wine/test.sh) gets
// the helpers built beside it.
func MainWithHelper(m *testing.M, pkg, name string, use func(bin string)) {
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		panic(err)
	}
	bin := filepath.Join(dir, name)
	if pre := os.Getenv("DSH_TEST_HELPERS"); pre != "" {
		bin = filepath.Join(pre, name)
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
	} else {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as shipped
		if out, err := build.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			panic("building " + name + ": " + err.Error() + "\n" + string(out))
		}
	}
	use(bin)
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("leaked goroutines: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
