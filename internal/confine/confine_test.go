package confine

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// TestConfine confines a child (this test binary again) and checks that
// it can no longer read or create a file, list a directory or make a TCP
// connection, but can still compute and start goroutines.
func TestConfine(t *testing.T) {
	if v, err := ll.LandlockGetABIVersion(); err != nil || v < 4 {
		t.Fatalf("this kernel's Landlock ABI is %d (%v); the test needs 4 or later (platform-notes.md: ABI 7)", v, err)
	}
	proctest.InChild(t, "DSH_CONFINE_CHILD=1", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0") // before: a port to call
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		if err := Process(); err != nil {
			t.Fatalf("Process: %v", err)
		}
		proctest.WantConfined(t)
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
	})
}
