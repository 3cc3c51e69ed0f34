package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"go.uber.org/goleak"
)

// Helper is a program a package's tests start: the command Pkg (a path
// relative to the test's package), built as Name and handed to Use.
type Helper struct {
	Pkg, Name string
	Use       func(bin string)
}

// MainWithHelper is MainWithHelpers with one helper.
func MainWithHelper(m *testing.M, pkg, name string, use func(bin string)) {
	MainWithHelpers(m, Helper{Pkg: pkg, Name: name, Use: use})
}

// MainWithHelpers is a TestMain for tests that need helper binaries: it
// builds each helper's command in a temporary directory, statically as
// shipped, hands its Use the binary's path, runs the tests, checks that
// they leaked no goroutine when they passed, removes the directory and
// exits with the result. It never returns.
//
// Where $DSH_TEST_HELPERS names a folder, the helpers are taken from it
// (Name, or Name.exe on Windows) instead: a test binary run where there
// is no Go toolchain (Windows under Wine, internal/wine/test.sh) gets
// the helpers built beside it.
func MainWithHelpers(m *testing.M, hs ...Helper) {
	dir, err := os.MkdirTemp("", "helpers-test")
	if err != nil {
		panic(err)
	}
	for _, h := range hs {
		bin := filepath.Join(dir, h.Name)
		if pre := os.Getenv("DSH_TEST_HELPERS"); pre != "" {
			bin = filepath.Join(pre, h.Name)
			if runtime.GOOS == "windows" {
				bin += ".exe"
			}
		} else {
			build := exec.Command("go", "build", "-o", bin, h.Pkg)
			build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as shipped
			if out, err := build.CombinedOutput(); err != nil {
				os.RemoveAll(dir)
				panic("building " + h.Name + ": " + err.Error() + "\n" + string(out))
			}
		}
		h.Use(bin)
	}
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
