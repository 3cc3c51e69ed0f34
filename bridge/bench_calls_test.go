//go:build linux

package bridge_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// callLatencies pairs the stamps of each tool call: from its in_progress
// update (else its tool_call) to its completed update, as the client
// receives them: the measure. It says little for a quick call:
// the bridge writes its in_progress and completed updates in one write
// when the call ends before the writer's turn comes (sentLatencies then
// tells what the person waits).
func (e *editor) callLatencies() []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	start := map[string]time.Time{}
	var out []time.Duration
	for _, st := range e.stamps {
		switch st.kind {
		case "tool_call":
			if _, ok := start[st.id]; !ok {
				start[st.id] = st.at
			}
		case "in_progress":
			start[st.id] = st.at
		case "completed":
			if t0, ok := start[st.id]; ok {
				out = append(out, st.at.Sub(t0))
				delete(start, st.id)
			}
		}
	}
	return out
}

// sentLatencies is, for each call completed since the stamps were
// cleared, the time from the model having sent the call's last byte to
// the client receiving its completed update: what a person waits for once
// the model has asked (the rest of the model's answer included, since a
// call starts when the stream moves past it).
func (e *editor) sentLatencies(m *fakeModel) []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []time.Duration
	for _, st := range e.stamps {
		if st.kind != "completed" {
			continue
		}
		if t0, ok := m.sentAt(st.id); ok {
			out = append(out, st.at.Sub(t0))
		}
	}
	return out
}

// benchPace is the fake model's pause between streamed events in the
// benchmarks: a real stream's events come tens of ms apart, each waking
// an idle bridge; 100 µs is enough for the bridge to go idle between
// them (its work on an event is a few µs), and keeps the runs short.
// DSH_BENCH_PACE sets another (a duration; "0" sends events back to back,
// as the benchmarks did before the fifth session of 2026-12-01).
func benchPace(b *testing.B) time.Duration {
	v := os.Getenv("DSH_BENCH_PACE")
	if v == "" {
		return 100 * time.Microsecond
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		b.Fatalf("DSH_BENCH_PACE=%q: want a duration", v)
	}
	return d
}

// benchFakeModel is the benchmarks' model: paced (benchPace), over HTTPS
// with DSH_BENCH_TLS=1 (HTTP/1.1, as a proxy in front of a model often
// serves it; every client, the floors included, then decrypts each event
// and encrypts each request), else plain HTTP.
func benchFakeModel(b *testing.B) *fakeModel {
	var f *fakeModel
	if os.Getenv("DSH_BENCH_TLS") == "1" {
		f = newFakeModelTLS(b)
	} else {
		f = newFakeModel(b)
	}
	f.pace = benchPace(b)
	return f
}

// benchEnv is a benchmarked bridge's environment for the model f: its
// address, the CA it trusts (as it trusts the real service's), the CPU
// profile DSH_BENCH_PROFILE names, then more.
func (f *fakeModel) benchEnv(more ...string) []string {
	env := []string{"DSH_BASE_URL=" + f.srv.URL, "DSH_CPUPROFILE=" + os.Getenv("DSH_BENCH_PROFILE")}
	if f.ca != "" {
		env = append(env, "SSL_CERT_FILE="+f.ca)
	}
	return append(env, more...)
}

// benchStdio is the stdio the benchmarks' bridges get: pipes (Go's
// os/exec, as Zed's Rust does), or with DSH_BENCH_STDIO=socket stream
// socket pairs (as VS Code's Node and Neovim give theirs).
func benchStdio(b *testing.B) func(testing.TB, *exec.Cmd) (io.WriteCloser, io.Reader) {
	switch v := os.Getenv("DSH_BENCH_STDIO"); v {
	case "", "pipe":
		return nil
	case "socket":
		return socketStdio(0)
	default:
		b.Fatalf("DSH_BENCH_STDIO=%q: want pipe or socket", v)
		return nil
	}
}

// percentile is the nearest-rank percentile p (0 < p ≤ 1) of ds.
func percentile[T int64 | time.Duration | float64](ds []T, p float64) T {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[max(0, int(math.Ceil(p*float64(len(s))))-1)]
}

func reportLatencies(b *testing.B, lat []time.Duration, what string) {
	b.Helper()
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds()), "p50-µs/"+what)
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs/"+what)
}

// procCPU is the CPU time (user + system, all threads, those ended too) a
// process has used, to the nanosecond: the kernel's clock of the process
// (clock_getcpuclockid(3): CPUCLOCK_SCHED of the process, not of one
// thread). /proc/pid/stat, the fallback, counts in 10 ms ticks, which
// blurs a single prompt's cost (a few ms) by as much as the cost itself.
func procCPU(pid int) time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(int32(^pid<<3|2), &ts) == nil {
		return time.Duration(ts.Nano())
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// helperCPU is the CPU time of pid's dsh-highlight children (the syntax
// tokens, computed outside the bridge), so that moving work out of the
// bridge is not counted as removing it.
func helperCPU(pid int) time.Duration {
	var total time.Duration
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil || !strings.Contains(string(stat), "(dsh-highlight)") {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if ppid, _ := strconv.Atoi(f[1]); ppid == pid {
			p, _ := strconv.Atoi(e.Name())
			total += procCPU(p)
		}
	}
	return total
}

// realGoFile writes the first n lines of net/http/server.go (a real,
// token-dense Go file) to dir/name.
func realGoFile(b *testing.B, dir, name string, n int) { realGoFileAt(b, dir, name, 0, n) }

// realGoFileAt writes n lines of net/http/server.go from line from+1.
func realGoFileAt(b *testing.B, dir, name string, from, n int) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip("GOROOT sources are not available")
	}
	lines := strings.SplitAfter(string(src), "\n")
	if len(lines) < from+n {
		b.Fatalf("server.go has %d lines", len(lines))
	}
	os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines[from:from+n], "")), 0o644)
}

// BenchmarkToolCallOverhead reads a real Go file (100 and 2,000 lines of
// net/http/server.go) through the binary, one read per prompt: the
// latency percentiles from the call's in_progress update to its
// completed one (callLatencies) and from the model's sending the call
// (sentLatencies), and the bridge's CPU
// per prompt in a fresh session (the prompt, two model requests, the
// read, its updates and its tokens, the session log).
func BenchmarkToolCallOverhead(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			dir, _ := filepath.EvalSymlinks(b.TempDir())
			realGoFile(b, dir, "f.go", n)
			m := newFakeModel(b)
			m.pace = benchPace(b)
			var seq int
			var mu sync.Mutex
			m.respond = func(req chatRequest) fakeTurn {
				if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
					return fakeTurn{text: "ok"}
				}
				mu.Lock()
				seq++
				id := fmt.Sprintf("c%d", seq)
				mu.Unlock()
				return fakeTurn{calls: []fakeCall{{id, "read", args("file_path", "f.go")}}}
			}
			e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "DSH_CPUPROFILE="+os.Getenv("DSH_BENCH_PROFILE"))
			e.noValidate = true
			e.initialize(benchCaps())
			e.prompt(e.newSession(dir), "warm up")
			var lat, sent []time.Duration
			var cpu, hcpu time.Duration
			for b.Loop() {
				// A fresh session each time: a growing history would make
				// this measure the model request's size instead.
				b.StopTimer()
				s := e.newSession(dir)
				e.mu.Lock()
				e.updates, e.raw, e.stamps = nil, nil, nil
				e.mu.Unlock()
				cpu0, hcpu0 := procCPU(e.cmd.Process.Pid), helperCPU(e.cmd.Process.Pid)
				b.StartTimer()
				if stop := e.prompt(s, "read"); stop != "end_turn" {
					b.Fatalf("stop reason %q", stop)
				}
				b.StopTimer()
				cpu += procCPU(e.cmd.Process.Pid) - cpu0
				hcpu += helperCPU(e.cmd.Process.Pid) - hcpu0
				lat = append(lat, e.callLatencies()...)
				sent = append(sent, e.sentLatencies(m)...)
				e.call("session/close", map[string]any{"sessionId": s})
				b.StartTimer()
			}
			if len(lat) != b.N {
				b.Fatalf("%d completed calls in %d prompts", len(lat), b.N)
			}
			reportLatencies(b, lat, "read")
			reportLatencies(b, sent, "read-since-sent")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "bridge-cpu-µs/prompt")
			b.ReportMetric(float64(hcpu.Microseconds())/float64(b.N), "helper-cpu-µs/prompt")
		})
	}
}

// BenchmarkConcurrentSessions runs 50 fresh sessions at once in one
// bridge, each making 20 reads of 100-line Go files in one prompt: per
// call latency percentiles over the 1,000 calls (callLatencies and
// sentLatencies), the wall time of the set (ns/op), and the bridge's peak RSS. Each
// iteration checks that every call completed and every prompt ended with
// end_turn; the goroutines only collect, the benchmark decides. With
// DSH_BENCH_SLOW=1 it logs the calls of every session that had one
// slower than 20 ms (logSlowSessions).
func BenchmarkConcurrentSessions(b *testing.B) {
	const sessions, reads = 50, 20
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	for i := range reads {
		realGoFile(b, dir, fmt.Sprintf("f%d.go", i), 100)
	}
	m := newFakeModel(b)
	m.pace = benchPace(b)
	var mu sync.Mutex
	n := 0
	m.respond = func(req chatRequest) fakeTurn {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return fakeTurn{text: "ok"}
		}
		mu.Lock()
		n++
		base := n
		mu.Unlock()
		calls := make([]fakeCall, reads)
		for i := range calls {
			calls[i] = fakeCall{fmt.Sprintf("s%d_%d", base, i), "read", args("file_path", fmt.Sprintf("f%d.go", i))}
		}
		return fakeTurn{calls: calls}
	}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "DSH_CPUPROFILE="+os.Getenv("DSH_BENCH_PROFILE"))
	e.noValidate = true
	e.initialize(benchCaps())
	var lat, sent []time.Duration
	for b.Loop() {
		b.StopTimer()
		ids := make([]string, sessions)
		for i := range ids {
			ids[i] = e.newSession(dir)
		}
		e.mu.Lock()
		e.updates, e.raw, e.stamps = nil, nil, nil
		e.mu.Unlock()
		b.StartTimer()
		stops := make([]string, sessions)
		var wg sync.WaitGroup
		for i, s := range ids {
			wg.Go(func() {
				ch := e.start("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "text", "text": "read everything"}}})
				select {
				case m := <-ch:
					if m.Error != nil {
						stops[i] = "error: " + m.Error.Message
						return
					}
					var r struct{ StopReason string }
					if err := json.Unmarshal(m.Result, &r); err != nil {
						stops[i] = "undecodable: " + err.Error()
						return
					}
					stops[i] = r.StopReason
				case <-time.After(2 * time.Minute):
					stops[i] = "no answer"
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		for i, stop := range stops {
			if stop != "end_turn" {
				b.Fatalf("session %d: %s", i, stop)
			}
		}
		got := e.callLatencies()
		if len(got) != sessions*reads {
			b.Fatalf("%d calls completed, want %d", len(got), sessions*reads)
		}
		lat = append(lat, got...)
		if os.Getenv("DSH_BENCH_SLOW") == "1" {
			logSlowSessions(b, e, reads, 20*time.Millisecond)
		}
		sent = append(sent, e.sentLatencies(m)...)
		for _, s := range ids {
			e.call("session/close", map[string]any{"sessionId": s})
		}
		b.StartTimer()
	}
	reportLatencies(b, lat, "call")
	reportLatencies(b, sent, "call-since-sent")
	b.ReportMetric(float64(procTreeKiB(e.cmd.Process.Pid, "VmHWM"))/1024, "peak-rss-MiB")
}

// logSlowSessions logs, for every session with a call that took longer
// than slow from in_progress to completed, when each of its calls was
// announced, started running and completed, from the first update the
// client stamped: whether one call was slow, or its completion waited for
// an earlier call's (calls commit in model order). Session ids are the
// part of a call id before "_", as BenchmarkConcurrentSessions names them.
func logSlowSessions(b *testing.B, e *editor, calls int, slow time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	type span struct{ announced, running, completed time.Duration }
	spans := map[string]*span{}
	var sessions []string
	var t0 time.Time
	for _, st := range e.stamps {
		if t0.IsZero() {
			t0 = st.at
		}
		sp := spans[st.id]
		if sp == nil {
			sp = &span{}
			spans[st.id] = sp
		}
		switch at := st.at.Sub(t0); st.kind {
		case "tool_call":
			sp.announced = at
		case "in_progress":
			sp.running = at
		case "completed":
			sp.completed = at
			if sess, _, _ := strings.Cut(st.id, "_"); at-sp.running > slow && !slices.Contains(sessions, sess) {
				sessions = append(sessions, sess)
			}
		}
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	for _, sess := range sessions {
		for i := range calls {
			id := fmt.Sprintf("%s_%d", sess, i)
			if sp := spans[id]; sp != nil {
				b.Logf("%s: announced %s, running %s, completed %s", id, ms(sp.announced), ms(sp.running), ms(sp.completed))
			}
		}
	}
}

// BenchmarkLongSession plays 20 prompts of 25 reads each (100-line Go
// files) in one session, then a 500-read turn. Per prompt, as slopes over
// the last 15: the RSS the bridge gains (VmRSS), its live heap (as of the
// last collection, from the bridge's debug "turn ended" line), what the
// history holds (text and cached encodings, same line), and the live heap
// beyond the history. Then the bridge's CPU per model request in the long
// turn (the request is rebuilt from the cached history each time), alone
// and with its dsh-highlight helper's (each request follows a read).
//
// With DSH_BENCH_TLS=1 the model is served over HTTPS (HTTP/1.1), as in
// BenchmarkReadCPU.
//
// Then the floor under that figure: the long turn's middle request (its
// median body) is posted again by clients that only send it and read the
// answer (floorClient, the Go one and curl), answered as the bridge was,
// with one read call; their CPU per request is the marginal one over runs
// of 1 and 11 requests on one connection (a process's first large request
// costs it tens of ms of page faults and buffer growth, which the
// difference cancels).
//
// With DSH_BENCH_OLD=1 the bridge is a build from before its turn-end
// log line (the one issue 13 was filed against, say): the memory figures,
// which that line gives, are not reported.
func BenchmarkLongSession(b *testing.B) {
	old := os.Getenv("DSH_BENCH_OLD") == "1"
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	for i := range 25 {
		realGoFileAt(b, dir, fmt.Sprintf("f%d.go", i), 100*i, 100)
	}
	var growth, liveGrowth, histGrowth, cpuPerReq, helperPerReq float64
	floors := floorClients(b)
	const rounds, more = 5, 10 // the floor clients' runs of 1 and 1+more requests
	for b.Loop() {
		m := benchFakeModel(b)
		var mu sync.Mutex
		n, perTurn := 0, 25
		m.respond = func(req chatRequest) fakeTurn {
			mu.Lock()
			defer mu.Unlock()
			last := req.Messages[len(req.Messages)-1]
			if last.Role == "tool" && perTurn > 0 && n%perTurn == 0 {
				return fakeTurn{text: "ok"}
			}
			n++
			return fakeTurn{calls: []fakeCall{{fmt.Sprintf("c%d", n), "read", args("file_path", fmt.Sprintf("f%d.go", n%25))}}}
		}
		e := startEditor(b, m.benchEnv("DSH_LOG_LEVEL=debug", "DSH_MAX_TURN_REQUESTS=600")...)
		e.noValidate = true
		e.initialize(benchCaps())
		s := e.newSession(dir)
		var rss, live, hist []float64
		for range 20 {
			if stop := e.prompt(s, "read 25 files"); stop != "end_turn" {
				b.Fatalf("stop %q", stop)
			}
			e.mu.Lock()
			e.updates, e.raw, e.stamps = nil, nil, nil
			e.mu.Unlock()
			rss = append(rss, float64(procTreeKiB(e.cmd.Process.Pid, "VmRSS")))
			if old {
				continue
			}
			h, l := lastTurnEnd(b, e, len(rss))
			hist, live = append(hist, h/1024), append(live, l/1024)
		}
		growth = (rss[19] - rss[4]) / 15
		if !old {
			liveGrowth = (live[19] - live[4]) / 15
			histGrowth = (hist[19] - hist[4]) / 15
		}
		mu.Lock()
		perTurn = 500
		mu.Unlock()
		reqs0 := len(m.recorded())
		cpu0, h0 := procCPU(e.cmd.Process.Pid), helperCPU(e.cmd.Process.Pid)
		if stop := e.prompt(s, "read 500 files"); stop != "end_turn" {
			b.Fatalf("stop %q", stop)
		}
		reqs := len(m.recorded()) - reqs0
		cpuPerReq = float64((procCPU(e.cmd.Process.Pid) - cpu0).Microseconds()) / float64(reqs)
		helperPerReq = float64((helperCPU(e.cmd.Process.Pid) - h0).Microseconds()) / float64(reqs)
		e.close()
		mu.Lock()
		perTurn = 0 // every answer is now one read call
		mu.Unlock()
		mid := writeRequest(b, m.rawBodies()[reqs0+reqs/2])
		for _, f := range floors {
			f.cpu = [2]time.Duration{}
			f.play(b, m, mid, 1, -1) // warm up
		}
		for r := range rounds {
			for j := range floors {
				f := floors[(j+r)%len(floors)]
				f.play(b, m, mid, 1, 0)
				if got := f.play(b, m, mid, 1+more, 1); got < (1+more)*5 {
					b.Fatalf("%s saw %d events in %d answers", f.name, got, 1+more)
				}
			}
		}
	}
	for _, f := range floors {
		perReq := f.marginal(rounds, more)
		b.ReportMetric(perReq, "floor-"+f.name+"-cpu-µs/request")
		b.ReportMetric(cpuPerReq/perReq, "ratio-bridge-request/floor-"+f.name)
	}
	b.ReportMetric(growth, "rss-KiB/prompt")
	if !old {
		b.ReportMetric(liveGrowth, "heap-live-KiB/prompt")
		b.ReportMetric(histGrowth, "history-KiB/prompt")
		b.ReportMetric(liveGrowth-histGrowth, "beyond-history-KiB/prompt")
	}
	b.ReportMetric(cpuPerReq, "bridge-cpu-µs/request")
	b.ReportMetric(cpuPerReq+helperPerReq, "with-helper-cpu-µs/request")
}

// lastTurnEnd returns the history bytes and live heap bytes of the nth
// "turn ended" line in a bridge's debug log, once it is there (stderr is
// copied by its own goroutine: it may trail the prompt's answer).
func lastTurnEnd(b *testing.B, e *editor, n int) (history, live float64) {
	e.waitFor(func() bool { return strings.Count(e.stderr.String(), `msg="turn ended"`) >= n })
	log := e.stderr.String()
	i := strings.LastIndex(log, `msg="turn ended"`)
	if strings.Count(log, `msg="turn ended"`) != n {
		b.Fatalf("%d turn ended lines after %d prompts", strings.Count(log, `msg="turn ended"`), n)
	}
	line, _, _ := strings.Cut(log[i:], "\n")
	field := func(name string) float64 {
		_, v, ok := strings.Cut(line, " "+name+"=")
		v, _, _ = strings.Cut(v, " ")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			b.Fatalf("no %s in %q", name, line)
		}
		return f
	}
	return field("historyBytes"), field("heapLiveBytes")
}

// benchCaps is what the benchmarks' client advertises: what dsh's own
// editor extensions send (they draw cards from _meta.dsh, so a read's text
// comes once), or with DSH_BENCH_PLAIN=1 nothing, as a plain ACP client.
func benchCaps() map[string]any {
	if os.Getenv("DSH_BENCH_PLAIN") == "1" {
		return nil
	}
	caps := packedCaps() // as dsh-bridge's extensions ask
	if os.Getenv("DSH_BENCH_FS") == "1" {
		// Files read and written through the editor, as Zed does.
		caps["fs"] = map[string]any{"readTextFile": true, "writeTextFile": true}
	}
	return caps
}
