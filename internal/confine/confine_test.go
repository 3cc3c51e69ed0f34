package confine

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// TestConfine confines a child (this test binary again) and checks that
// it can no longer read or create a file, list a directory or make a TCP
// connection, but can still compute and start goroutines.
func TestConfine(t *testing.T) {
	if os.Getenv("DSH_CONFINE_CHILD") == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0") // before: a port to call
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if err := Process(); err != nil {
			t.Fatalf("Process: %v", err)
		}
		if _, err := os.ReadFile(os.Args[0]); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("read a file after Process: %v", err)
		}
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			c.Close()
			t.Fatal("connected over TCP after Process")
		}
		if _, err := os.ReadDir("/"); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("list / after Process: %v", err)
		}
		if err := os.WriteFile(filepath.Join(os.TempDir(), "dsh-confined"), nil, 0o600); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("create a file after Process: %v", err)
		}
		done := make(chan int)
		go func() { done <- len(strings.Fields("still works")) }()
		if <-done != 2 {
			t.Fatal("a goroutine after Process")
		}
		return
	}
	if v, err := ll.LandlockGetABIVersion(); err != nil || v < 4 {
		t.Fatalf("this kernel's Landlock ABI is %d (%v); the test needs 4 or later (platform-notes.md: ABI 7)", v, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestConfine$", "-test.v")
	cmd.Env = append(os.Environ(), "DSH_CONFINE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestConfine") {
		t.Fatalf("the confined child: %v\n%s", err, out)
	}
}
