package bridge_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStdio plays the same turn over the two kinds of stdio editors give
// the bridge: pipes (Go's os/exec, Rust's std::process) and stream socket
// pairs (libuv: VS Code's Node, Neovim's jobstart), the socket's send
// buffer as small as macOS's. The turn's read card (the first 1,610 lines
// of a Go file, 157 KB) is larger than either's buffer, so its line goes
// out partly at once and partly after the editor reads; a long answer
// streams a line per token. Everything must arrive whole and in order.
func TestStdio(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	long := strings.Repeat("All of this answer must arrive, token by token, in order. ", 40)
	for _, tc := range []struct {
		name  string
		stdio func(testing.TB, *exec.Cmd) (io.WriteCloser, io.Reader)
		kind  string // what Linux's /proc says the bridge's stdout is
	}{
		{"pipes", nil, "pipe:"},
		{"socket pairs", socketStdio(4 << 10), "socket:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			os.WriteFile(filepath.Join(dir, "server.go"), src, 0o644)
			m := newFakeModel(t,
				fakeTurn{calls: []fakeCall{{"r1", "read", args("file_path", "server.go")}}},
				fakeTurn{text: long})
			e := startEditorStdio(t, binary, tc.stdio, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error")
			if runtime.GOOS == "linux" { // only Linux's /proc says
				if out, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", e.cmd.Process.Pid)); !strings.HasPrefix(out, tc.kind) {
					t.Fatalf("the bridge's stdout is %q, want a %s", out, tc.kind)
				}
			}
			e.initialize(map[string]any{})
			sess := e.newSession(dir)
			if stop := e.prompt(sess, "read it"); stop != "end_turn" {
				t.Fatalf("stop reason %q", stop)
			}
			ups := e.toolUpdates("r1")
			if finalStatus(ups) != "completed" {
				t.Fatalf("the read's updates %+v", ups)
			}
			var card []byte
			for _, u := range ups {
				if u.Status == "completed" {
					card = u.Raw
				}
			}
			shown := cardLines(card)
			if len(shown) < 1000 {
				t.Fatalf("the completed card (%d bytes) shows %d lines", len(card), len(shown))
			}
			for i, l := range shown {
				if l.Number != i+1 || l.Text != strings.TrimSuffix(lines[i], "\n") {
					t.Fatalf("line %d of the card is %d %q, want %q", i+1, l.Number, l.Text, lines[i])
				}
			}
			if got := e.agentText(); got != long {
				t.Errorf("the answer arrived as %d bytes of %d", len(got), len(long))
			}
		})
	}
}

// cardLines finds the numbered lines of a read card anywhere in an
// update.
func cardLines(raw []byte) []struct {
	Number int
	Text   string
} {
	var v any
	json.Unmarshal(raw, &v)
	var out []struct {
		Number int
		Text   string
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ls, ok := v["lines"].([]any); ok && out == nil {
				b, _ := json.Marshal(ls)
				if json.Unmarshal(b, &out) == nil && len(out) > 0 {
					return
				}
				out = nil
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}
