package chromatok

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// TestConfine confines a child (this test binary again) and checks that
// it can no longer read a file or make a TCP connection, but can still
// tokenize.
func TestConfine(t *testing.T) {
	if os.Getenv("DSH_CONFINE_CHILD") == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0") // before: a port to call
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if err := Confine(); err != nil {
			t.Fatalf("Confine: %v", err)
		}
		if _, err := os.ReadFile("/etc/hostname"); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("read a file after Confine: %v", err)
		}
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			c.Close()
			t.Fatal("connected over TCP after Confine")
		}
		if ts, known, err := Tokenize("a.go", "", []string{"package a"}); err != nil || !known || len(ts) != 1 {
			t.Fatalf("Tokenize after Confine: %+v %v %v", ts, known, err)
		}
		return
	}
	if v, err := ll.LandlockGetABIVersion(); err != nil || v < 4 {
		t.Fatalf("this kernel's Landlock ABI is %d (%v); the test needs 4 or later (platform-notes.md: ABI 7)", v, err)
	}
	if _, err := os.ReadFile("/etc/hostname"); err != nil {
		t.Skipf("no /etc/hostname to try: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestConfine$", "-test.v")
	cmd.Env = append(os.Environ(), "DSH_CONFINE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestConfine") {
		t.Fatalf("the confined child: %v\n%s", err, out)
	}
}
