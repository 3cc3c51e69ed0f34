package mcptools

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dsh-bridge/dsh-bridge/internal/mcptest"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestMain runs the mcptest server over stdio when the test binary is
// started as one (MCPTOOLS_TEST_SERVER=1), so that a test can crash and
// restart a real server process.
func TestMain(m *testing.M) {
	if os.Getenv("MCPTOOLS_TEST_SERVER") == "1" {
		if err := mcptest.NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// reports collects a manager's reports.
type reports struct {
	mu  sync.Mutex
	got []string
}

func (r *reports) add(severity, title, _ string) {
	r.mu.Lock()
	r.got = append(r.got, severity+": "+title)
	r.mu.Unlock()
}

func (r *reports) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.got {
		if g == s {
			return true
		}
	}
	return false
}

// TestManager_RestartsACrashedServer: a stdio server that exits mid-session
// is reported stopped, its tools fail as unavailable (registered still,
// under the same names), and it is restarted: reported back, its tools
// answer again.
func TestManager_RestartsACrashedServer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	scope := reg.NewScope("session", nil)
	var r reports
	m := Start(context.Background(), reg, scope, []Server{{Name: "t", Type: "stdio", Command: self, Env: map[string]string{"MCPTOOLS_TEST_SERVER": "1"}}},
		Options{Report: r.add, StartTimeout: 20 * time.Second})
	defer m.Close()
	s := m.servers[0]
	names := fmt.Sprint(m.Tools()["t"])
	if !strings.Contains(names, "mcp__t__echo") || !strings.Contains(names, "mcp__t__crash") {
		t.Fatalf("got tools %s, want echo and crash", names)
	}
	echo := func() (string, error) {
		v, err := s.call(context.Background(), "echo", "mcp__t__echo", "", jsonv.MustParse(`{"text":"hi"}`), nil)
		if err != nil {
			return "", err
		}
		return string(v.Bytes()), nil
	}
	if got, err := echo(); err != nil || !strings.Contains(got, "echo: hi") {
		t.Fatalf("got %q, %v before the crash, want echo: hi", got, err)
	}

	s.call(context.Background(), "crash", "mcp__t__crash", "", jsonv.MustParse(`{}`), nil)
	waitUntil(t, func() bool { return r.has(`warning: MCP server "t" stopped`) })
	if _, err := echo(); err == nil || !strings.Contains(err.Error(), `the MCP server "t" is unavailable`) {
		// The restart may already be under way, never done within its
		// first backoff.
		t.Errorf("got %v while down, want the server unavailable", err)
	}
	if reg.Get("mcp__t__echo", scope) == nil {
		t.Error("the tools were dropped while the server was down, want them failing")
	}
	waitUntil(t, func() bool { return r.has(`info: MCP server "t" is back`) })
	if got, err := echo(); err != nil || !strings.Contains(got, "echo: hi") {
		t.Errorf("got %q, %v after the restart, want echo: hi", got, err)
	}
	if after := fmt.Sprint(m.Tools()["t"]); after != names {
		t.Errorf("got tools %s after the restart, want %s", after, names)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
