package secrets

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseBlocks(t *testing.T) {
	tail := " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 100 200 300 400 0"
	for _, tc := range []struct {
		name, comm string
		want       blocks
		wantErr    string
	}{
		{"plain", "(dsh-bridge) S", blocks{100, 200, 300, 400}, ""},
		{"a name with spaces and parentheses", "(a) b (c)) S", blocks{100, 200, 300, 400}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBlocks("42 " + tc.comm + tail)
			if err != nil || got != tc.want {
				t.Errorf("got %v, %v, want %v", got, err, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, line, wantErr string }{
		{"no name", "42 S 1 2", "command name"},
		{"too short", "42 (x) S 1 2 3", "addresses"},
		{"not a number", "42 (x) S" + strings.Replace(tail, " 100 ", " x ", 1), "not a number"},
		{"out of order", "42 (x) S" + strings.Replace(tail, " 100 200 ", " 300 200 ", 1), "out of order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseBlocks(tc.line); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

func TestBlocks_Blank(t *testing.T) {
	b := blocks{argStart: 1000, argEnd: 1030, envStart: 1030, envEnd: 1100}
	got := b.blank(len("/bin/dsh-bridge"))
	want := [][2]uint64{{1016, 1030}, {1030, 1100}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := (blocks{argStart: 1000, argEnd: 1016}).blank(15); len(got) != 0 {
		t.Errorf("no arguments, no environment: got %v, want nothing", got)
	}
}

// TestHideProcess runs a child that hides itself, and reads its
// /proc/<pid>/environ and cmdline from here, as any process of the same
// user could.
func TestHideProcess(t *testing.T) {
	if os.Getenv("SECRETS_HIDE_CHILD") == "1" {
		if err := HideProcess(); err != nil {
			t.Fatal(err)
		}
		if os.Getenv("DSH_API_KEY") != "sk-hidden-0123456789" || os.Getenv("SECRETS_HIDE_CHILD") != "1" {
			t.Fatalf("the environment is gone from Go too: %q", os.Getenv("DSH_API_KEY"))
		}
		if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || d != 0 {
			t.Fatalf("the process is still dumpable: %d, %v", d, err)
		}
		if !slicesHave(os.Args, "--api-key=sk-flag-0123456789") {
			t.Fatalf("os.Args lost its arguments: %q", os.Args)
		}
		os.Stdout.WriteString("READY\n")
		var b [1]byte
		os.Stdin.Read(b[:]) // held until the parent has looked
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHideProcess$", "--", "--api-key=sk-flag-0123456789")
	cmd.Env = append(os.Environ(), "SECRETS_HIDE_CHILD=1", "DSH_API_KEY=sk-hidden-0123456789")
	in, _ := cmd.StdinPipe()
	var out bytes.Buffer
	pr, pw, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = pw, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	buf := make([]byte, 6)
	if _, err := pr.Read(buf); err != nil || string(buf) != "READY\n" {
		in.Close()
		cmd.Wait()
		t.Fatalf("the child did not get ready: %q %v\n%s", buf, err, out.String())
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	environ, err1 := os.ReadFile("/proc/" + pid + "/environ")
	cmdline, err2 := os.ReadFile("/proc/" + pid + "/cmdline")
	in.Close()
	cmd.Wait()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for _, secret := range []string{"sk-hidden-0123456789", "sk-flag-0123456789", "SECRETS_HIDE_CHILD"} {
		if bytes.Contains(environ, []byte(secret)) || bytes.Contains(cmdline, []byte(secret)) {
			t.Errorf("%s is still in /proc/%s: environ %q, cmdline %q", secret, pid, environ, cmdline)
		}
	}
	if prog, _, _ := bytes.Cut(cmdline, []byte{0}); string(prog) != os.Args[0] {
		t.Errorf("the program's name: got %q, want %q", prog, os.Args[0])
	}
}

func slicesHave(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// BenchmarkHideProcess is what hiding costs the bridge's start: once.
func BenchmarkHideProcess(b *testing.B) {
	for b.Loop() {
		if err := HideProcess(); err != nil {
			b.Fatal(err)
		}
	}
}
