package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBash_Windows: where no bash is found (under Wine there is no Git for
// Windows), the bash tool's description tells the model that commands run
// with cmd.exe and how to reach PowerShell, and a command runs there: its
// output, its exit status and its working folder are cmd's. Where Git's
// bash.exe is found, the Unix tests' cases are the ones that apply.
func TestBash_Windows(t *testing.T) {
	if Shell().Kind != ShellCmd {
		t.Skipf("this Windows has bash (%s): bash_test.go's cases apply, and run where it is built", Shell().Path)
	}
	e := newEnv(t, LocalHost{})
	os.Mkdir(filepath.Join(e.dir, "sub"), 0o755)
	t.Run("the description names the shell", func(t *testing.T) {
		tool := e.reg.Get("bash", e.scope)
		if tool == nil {
			t.Fatal("no bash tool")
		}
		if d := tool.Description; !strings.Contains(d, NoBashNote) || !strings.Contains(d, "powershell -NoProfile -Command") {
			t.Errorf("the description does not say which shell runs commands: %q", d)
		}
	})
	for _, tc := range []struct {
		name, cmd, extra string
		stdout, stderr   string
		code             int64
	}{
		{"stdout", "echo hello", "", "hello", "", 0},
		{"stderr and exit code", "echo out& echo oops 1>&2& exit /b 3", "", "out", "oops", 3},
		{"cmd syntax, not bash's", "if 1==1 (echo yes) else (echo no)", "", "yes", "", 0},
		{"a program that does not exist", "ls", "", "", "", 9009}, // cmd's "not recognized"
		{"workdir", "cd", `,"workdir":"sub"`, filepath.Join(e.dir, "sub"), "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wantOK(t, e.call("bash", bashArgsJSON(tc.cmd, tc.extra)))
			exit := ""
			if tc.code != 0 {
				exit = fmt.Sprintf("[exit code: %d]", tc.code)
			}
			out, _, _ := strings.Cut(got, "[stderr]")
			if !strings.Contains(strings.ToLower(out), strings.ToLower(tc.stdout)) || !strings.Contains(got, tc.stderr) ||
				(exit == "") == strings.Contains(got, "[exit code:") || !strings.Contains(got, exit) {
				t.Errorf("got %q, want stdout %q, stderr with %q, exit %d", got, tc.stdout, tc.stderr, tc.code)
			}
		})
	}
}
