//go:build linux

package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// anchorsDir holds the npm-installed anchors (see BENCHMARKS.md).
func anchorsDir() string {
	if d := os.Getenv("DSH_ANCHORS_DIR"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "dsh-anchors")
}

// procTreeKiB sums a field of /proc/<pid>/status (VmRSS or VmHWM) over
// pid and its descendants.
func procTreeKiB(pid int, field string) int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	total := 0
	var walk func(int)
	walk = func(p int) {
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, field+":") {
				kb, _ := strconv.Atoi(strings.Fields(l)[1])
				total += kb
			}
		}
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return total
}

// BenchmarkSessionRequestBytes plays a 30-turn session through the binary
// against the DeepSeek fake: each turn reads a real Go source file of the
// standard library (up to 2,000 lines) and answers. It reports the bytes
// sent per model request (mean and largest), the whole session's bytes,
// and the share of prompt tokens the fake's prefix cache served, with a
// 1M-token window (no compaction) and with a 64K-token window (compaction
// from about turn 8).
func BenchmarkSessionRequestBytes(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(files) < 30 {
		b.Skip("GOROOT sources are not available")
	}
	for _, bc := range []struct{ name, settings string }{
		{"window=1M", ""},
		{"window=64K", `{"models":{"deepseek-v4-flash":{"contextWindow":64000}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var mean, largest, total, hitShare float64
			for b.Loop() {
				dir, _ := filepath.EvalSymlinks(b.TempDir())
				for i, f := range files[:30] {
					src, _ := os.ReadFile(f)
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", i)), src, 0o644)
				}
				cfg := b.TempDir()
				if bc.settings != "" {
					os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
					os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(bc.settings), 0o600)
				}
				m := newFakeModel(b)
				m.summary = "Summary: the files read so far were net/http sources; nothing was changed."
				turn := 0
				m.respond = func(req chatRequest) fakeTurn {
					if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
						return fakeTurn{text: "Read it; the handler logic is in there."}
					}
					turn++
					return fakeTurn{calls: []fakeCall{{fmt.Sprintf("c%d", turn), "read", args("file_path", fmt.Sprintf("f%02d.go", turn-1))}}}
				}
				e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "XDG_CONFIG_HOME="+cfg)
				e.noValidate = true
				e.initialize(nil)
				s := e.newSession(dir)
				for i := range 30 {
					if stop := e.prompt(s, fmt.Sprintf("Read f%02d.go and tell me what it does.", i)); stop != "end_turn" {
						b.Fatalf("turn %d: %s", i, stop)
					}
				}
				e.close()
				bodies := m.rawBodies()
				sum, big := 0, 0
				for _, body := range bodies {
					sum += len(body)
					big = max(big, len(body))
				}
				hit, prompt := 0, 0
				for _, u := range m.reported() {
					hit += u.hit
					prompt += u.prompt
				}
				mean, largest, total = float64(sum)/float64(len(bodies)), float64(big), float64(sum)
				hitShare = float64(hit) / float64(prompt)
			}
			b.ReportMetric(mean, "bytes/req")
			b.ReportMetric(largest, "max-bytes/req")
			b.ReportMetric(total, "bytes/session")
			b.ReportMetric(hitShare*100, "cache-hit-%")
		})
	}
}

// BenchmarkCommandStart measures what every local command pays to start:
// `bash -c true` plainly, under the supervisor of the real dsh-bridge
// binary, and under the supervisor starting the sandbox helper, which
// enters the sandbox and execs the command (the path a sandboxed command
// takes), interleaved in one run.
func BenchmarkCommandStart(b *testing.B) {
	dir := b.TempDir()
	profile := `{"write":["` + dir + `"],"network":false}`
	for _, bc := range []struct {
		name string
		argv []string
	}{
		{"plain", []string{"bash", "-c", "true"}},
		{"supervised", []string{binary, "__dsh-supervise", strconv.Itoa(os.Getpid()), "--", "bash", "-c", "true"}},
		{"supervised+sandboxed", []string{binary, "__dsh-supervise", strconv.Itoa(os.Getpid()), "--", binary, "__dsh-sandbox-exec", profile, "--", "bash", "-c", "true"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bc.argv[0], bc.argv[1:]...)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// BenchmarkMCPSessionNew measures session/new (then session/close) with one
// and with five stdio MCP servers, which start in parallel.
func BenchmarkMCPSessionNew(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	e := startEditor(b, "DSH_LOG_LEVEL=error")
	e.noValidate = true
	e.initialize(nil)
	for _, n := range []int{0, 1, 5} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			var servers []any
			for i := range n {
				servers = append(servers, stdioServer(fmt.Sprintf("s%d", i)))
			}
			for b.Loop() {
				res, err := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": servers})
				if err != nil {
					b.Fatal(err)
				}
				var r struct{ SessionID string }
				json.Unmarshal(res, &r)
				if _, err := e.call("session/close", map[string]any{"sessionId": r.SessionID}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMCPCall compares one echo call on the SDK client directly with
// the same call made by the model through dsh-bridge (tool_call announced
// to completed, read-only so nothing asks), interleaved.
func BenchmarkMCPCall(b *testing.B) {
	b.Run("sdk-direct", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(mcpServerBin)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("through-dsh-bridge", func(b *testing.B) {
		dir, _ := filepath.EvalSymlinks(b.TempDir())
		m := newFakeModel(b)
		m.respond = func(req chatRequest) fakeTurn {
			if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
				return fakeTurn{text: "ok"}
			}
			return fakeTurn{calls: []fakeCall{{fmt.Sprintf("c%d", time.Now().UnixNano()), "mcp__s__echo", `{"text":"x"}`}}}
		}
		// The user trusts the server's annotations, so its read-only echo
		// runs without a permission request.
		cfg := b.TempDir()
		bin, _ := json.Marshal(mcpServerBin)
		os.MkdirAll(filepath.Join(cfg, "dsh-bridge"), 0o700)
		os.WriteFile(filepath.Join(cfg, "dsh-bridge", "settings.json"), []byte(`{"mcpServers":{"s":{"command":`+string(bin)+`,"trustAnnotations":true}}}`), 0o600)
		e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "XDG_CONFIG_HOME="+cfg)
		e.noValidate = true
		e.initialize(nil)
		res, err := e.call("session/new", map[string]any{"cwd": dir, "mcpServers": []any{stdioServer("s")}})
		if err != nil {
			b.Fatal(err)
		}
		var r struct{ SessionID string }
		json.Unmarshal(res, &r)
		var lat []time.Duration
		for b.Loop() {
			e.mu.Lock()
			e.updates, e.raw, e.stamps = nil, nil, nil
			e.mu.Unlock()
			e.prompt(r.SessionID, "echo")
			lat = append(lat, e.callLatencies()...)
		}
		reportLatencies(b, lat, "tool-call")
	})
}
