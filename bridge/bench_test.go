package bridge_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

// BenchmarkStartup measures, per agent, the time from process start to the
// initialize answer (ns/op) and the RSS of its process tree after the
// session/new answer (rss-KiB). The anchors cannot open a session without
// credentials; their RSS is taken after that answer (an error) all the same.
func BenchmarkStartup(b *testing.B) {
	agents := []struct{ name, path string }{
		{"dsh-bridge", binary},
		{"claude-agent-acp", filepath.Join(anchorsDir(), "node_modules", ".bin", "claude-agent-acp")},
		{"codex-acp", filepath.Join(anchorsDir(), "node_modules", ".bin", "codex-acp")},
	}
	cwd := b.TempDir()
	for _, a := range agents {
		b.Run(a.name, func(b *testing.B) {
			if _, err := os.Stat(a.path); err != nil {
				b.Skipf("%s not installed (see BENCHMARKS.md)", a.name)
			}
			var rss []int
			for b.Loop() {
				cmd := exec.Command(a.path)
				cmd.Env = append(os.Environ(), "DSH_API_KEY=bench", "HOME="+cwd)
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				r := bufio.NewReader(stdout)
				io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
				if _, err := r.ReadString('\n'); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+cwd+`","mcpServers":[]}}`+"\n")
				for {
					line, err := r.ReadString('\n')
					if err != nil || strings.Contains(line, `"id":2`) {
						break
					}
				}
				rss = append(rss, procTreeKiB(cmd.Process.Pid, "VmRSS"))
				stdin.Close()
				cmd.Process.Kill()
				cmd.Wait()
				b.StartTimer()
			}
			sum := 0
			for _, r := range rss {
				sum += r
			}
			b.ReportMetric(float64(sum)/float64(len(rss)), "rss-KiB")
		})
	}
}

// BenchmarkToolCallOverhead measures, through the real binary, the time
// from the tool_call announcement of a no-op read to its completed update.
func BenchmarkToolCallOverhead(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644)
	m := newFakeModel(b)
	m.respond = func(req chatRequest) fakeTurn {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return fakeTurn{text: "ok"}
		}
		return fakeTurn{calls: []fakeCall{{fmt.Sprintf("c%d", time.Now().UnixNano()), "read", args("file_path", "a.txt")}}}
	}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error")
	e.noValidate = true
	e.initialize(nil)
	s := e.newSession(dir)
	var total time.Duration
	for b.Loop() {
		e.mu.Lock()
		e.updates, e.raw = nil, nil
		e.mu.Unlock()
		e.prompt(s, "read")
		var start, end time.Time
		e.mu.Lock()
		stamps := e.stamps
		e.stamps = nil
		e.mu.Unlock()
		for _, st := range stamps {
			if st.kind == "tool_call" && start.IsZero() {
				start = st.at
			}
			if st.kind == "completed" {
				end = st.at
			}
		}
		total += end.Sub(start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/tool-call")
}

// BenchmarkConcurrentSessions runs 50 sessions at once in one bridge, each
// making 20 tool calls (reads) in one prompt; ns/op is the wall time of
// the whole set, with the bridge's peak RSS and the number of failed calls.
func BenchmarkConcurrentSessions(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	for i := range 20 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat("line\n", 100)), 0o644)
	}
	m := newFakeModel(b)
	var seq sync.Mutex
	n := 0
	m.respond = func(req chatRequest) fakeTurn {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return fakeTurn{text: "ok"}
		}
		seq.Lock()
		n++
		base := n
		seq.Unlock()
		var calls []fakeCall
		for i := range 20 {
			calls = append(calls, fakeCall{fmt.Sprintf("s%d_%d", base, i), "read", args("file_path", fmt.Sprintf("f%d.txt", i))})
		}
		return fakeTurn{calls: calls}
	}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "DSH_CPUPROFILE="+os.Getenv("DSH_BENCH_PROFILE"))
	e.noValidate = true
	e.initialize(nil)
	sessions := make([]string, 50)
	for i := range sessions {
		sessions[i] = e.newSession(dir)
	}
	for b.Loop() {
		var wg sync.WaitGroup
		for _, s := range sessions {
			wg.Go(func() { e.prompt(s, "read everything") })
		}
		wg.Wait()
	}
	failed := 0
	for _, u := range e.decodedUpdates() {
		if u.Status == "failed" {
			failed++
		}
	}
	b.ReportMetric(float64(procTreeKiB(e.cmd.Process.Pid, "VmHWM")), "peak-rss-KiB")
	b.ReportMetric(float64(failed), "failed-calls")
}
