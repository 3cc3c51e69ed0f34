//go:build linux

package bridge_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
)

// agent is an ACP agent BenchmarkStartup starts: its name in the metrics
// and its executable.
type agent struct{ name, path string }

// startAgent starts an agent in its own process group, and returns the
// time to its initialize answer and its process tree's RSS at that point,
// all of it and its anonymous part (the rest is the binaries' pages, shared
// with every process that maps them); the whole group (a launcher's native
// child included) is killed.
func startAgent(b *testing.B, a agent, home string) (time.Duration, int, int) {
	cmd := exec.Command(a.path)
	cmd.Env = append(os.Environ(), "DSH_API_KEY=bench", "HOME="+home, "CODEX_HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("%s: no initialize answer: %v", a.name, err)
		}
		if strings.Contains(line, `"id":1`) {
			break
		}
	}
	d := time.Since(t0)
	return d, procTreeKiB(cmd.Process.Pid, "VmRSS"), procTreeKiB(cmd.Process.Pid, "RssAnon")
}

// freshCopy copies the executable at path into a new file of its own.
func freshCopy(b *testing.B, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	dst := filepath.Join(b.TempDir(), filepath.Base(path))
	proctest.WriteExec(b, dst, data)
	return dst
}

// BenchmarkStartup measures process start to the initialize answer, and
// the RSS of the agent's process tree then, for dsh-bridge and the
// anchors installed in anchorsDir (see BENCHMARKS.md), interleaved: each
// iteration starts every agent once. The anchor is codex-acp's native
// binary (its npm launcher would add a node start); claude-agent-acp is
// node. Reports medians and the ratio to the native codex-acp.
// DSH_BENCH_BASELINE names another dsh-bridge build to interleave (say,
// the previous commit's).
func BenchmarkStartup(b *testing.B) {
	nm := filepath.Join(anchorsDir(), "node_modules")
	// The native binaries run from fresh copies, made the same way: the
	// same binary started from another file of the page cache was up to
	// 2 ms faster or slower, more than the builds compared here differ.
	agents := []agent{{"dsh-bridge", freshCopy(b, binary)}}
	if base := os.Getenv("DSH_BENCH_BASELINE"); base != "" {
		agents = append(agents, agent{"baseline", freshCopy(b, base)}) // another build, for a before/after in one run
	}
	for _, a := range []agent{
		{"codex-acp", filepath.Join(nm, "@zed-industries", "codex-acp-linux-x64", "bin", "codex-acp")},
		{"claude-agent-acp", filepath.Join(nm, ".bin", "claude-agent-acp")}, // a node script: its launcher stays where npm put it
	} {
		if _, err := os.Stat(a.path); err != nil {
			b.Logf("%s not installed in %s (see BENCHMARKS.md)", a.name, anchorsDir())
			continue
		}
		if a.name == "codex-acp" {
			a.path = freshCopy(b, a.path)
		}
		agents = append(agents, a)
	}
	home := b.TempDir()
	times := make([][]time.Duration, len(agents))
	rss := make([][]int64, len(agents))
	anon := make([][]int64, len(agents))
	for n := 0; b.Loop(); n++ {
		// The order rotates, so that no agent always follows the same one
		// (the one before may leave the machine busy as it is torn down).
		for k := range agents {
			i := (n + k) % len(agents)
			d, kib, anonKiB := startAgent(b, agents[i], home)
			times[i] = append(times[i], d)
			rss[i] = append(rss[i], int64(kib))
			anon[i] = append(anon[i], int64(anonKiB))
		}
	}
	for i, a := range agents {
		b.ReportMetric(float64(percentile(times[i], 0.5).Microseconds())/1000, a.name+"-ms")
		b.ReportMetric(float64(percentile(rss[i], 0.5))/1024, a.name+"-rss-MiB")
		b.ReportMetric(float64(percentile(anon[i], 0.5))/1024, a.name+"-anon-MiB")
		if i > 0 {
			b.ReportMetric(float64(percentile(times[0], 0.5))/float64(percentile(times[i], 0.5)), "dsh/"+a.name)
		}
	}
}
