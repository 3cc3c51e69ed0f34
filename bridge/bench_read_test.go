package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkReadCPU measures what one more read costs the bridge: each
// iteration plays, in fresh sessions, a prompt whose turn makes 1 read and
// one whose turn makes 25 (in one model response), of 100-line windows of
// net/http/server.go made unique per iteration (so neither the token cache
// nor anything else can answer from memory). The marginal CPU per read is
// (CPU of the 25-read prompt − CPU of the 1-read prompt) / 24, for the
// bridge and, separately, for its dsh-highlight helper: the prompt, the
// model requests and the session's own costs cancel out; what is left is
// the read, its cards and tokens, its log event and its share of the next
// model request.
//
// It also reports, per read and just as marginally, the bridge's context
// switches (its threads' sleeps and wake-ups, which on a paravirtualized
// VM cost more than the work between them) and its write system calls
// (each one to stdout wakes the editor).
func BenchmarkReadCPU(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	const many = 25
	m := newFakeModel(b)
	var mu sync.Mutex
	reads, iter, seq := 1, 0, 0
	m.respond = func(req chatRequest) fakeTurn {
		mu.Lock()
		defer mu.Unlock()
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return fakeTurn{text: "ok"}
		}
		var calls []fakeCall
		for j := range reads {
			seq++
			calls = append(calls, fakeCall{fmt.Sprintf("c%d", seq), "read", args("file_path", fmt.Sprintf("i%d-f%d.go", iter, j))})
		}
		return fakeTurn{calls: calls}
	}
	e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "DSH_CPUPROFILE="+os.Getenv("DSH_BENCH_PROFILE"))
	e.noValidate = true
	e.initialize(benchCaps())
	var sw, wr, wb [2]int64 // context switches, write system calls, bytes written: [1-read, 25-read] prompts
	play := func(n int) (bridge, helper time.Duration, lat []time.Duration) {
		mu.Lock()
		reads = n
		mu.Unlock()
		s := e.newSession(dir)
		e.mu.Lock()
		e.updates, e.raw, e.stamps = nil, nil, nil
		e.mu.Unlock()
		pid := e.cmd.Process.Pid
		c0, h0 := procCPU(pid), helperCPU(pid)
		sw0, wr0, wb0 := procSwitches(pid), procWrites(pid), procIO(pid, "wchar")
		if stop := e.prompt(s, "read"); stop != "end_turn" {
			b.Fatalf("stop reason %q", stop)
		}
		bridge, helper = procCPU(pid)-c0, helperCPU(pid)-h0
		k := min(n-1, 1)
		sw[k] += procSwitches(pid) - sw0
		wr[k] += procWrites(pid) - wr0
		wb[k] += procIO(pid, "wchar") - wb0
		lat = e.callLatencies()
		if len(lat) != n {
			b.Fatalf("%d of %d reads completed", len(lat), n)
		}
		e.call("session/close", map[string]any{"sessionId": s})
		return bridge, helper, lat
	}
	write := func(i int) {
		for j := range many {
			from := (i*7 + j*100) % (len(lines) - 100)
			text := fmt.Sprintf("// iteration %d, file %d\n", i, j) + strings.Join(lines[from:from+99], "")
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("i%d-f%d.go", i, j)), []byte(text), 0o644)
		}
	}
	write(0)
	play(many) // warm up: the helper's start
	sw, wr, wb = [2]int64{}, [2]int64{}, [2]int64{}
	var one, all, hOne, hAll time.Duration
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		mu.Lock()
		iter++
		mu.Unlock()
		write(iter)
		b.StartTimer()
		c, h, _ := play(1)
		one, hOne = one+c, hOne+h
		b.StopTimer()
		mu.Lock()
		iter++ // the 25-read prompt reads other files than the 1-read one did
		mu.Unlock()
		write(iter)
		b.StartTimer()
		c, h, l := play(many)
		all, hAll = all+c, hAll+h
		lat = append(lat, l...)
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric((per(all)-per(one))/(many-1), "bridge-cpu-µs/read")
	b.ReportMetric((per(hAll)-per(hOne))/(many-1), "helper-cpu-µs/read")
	b.ReportMetric(per(one), "bridge-cpu-µs/1-read-prompt")
	perRead := func(v [2]int64) float64 { return float64(v[1]-v[0]) / float64(b.N) / (many - 1) }
	b.ReportMetric(perRead(sw), "bridge-switches/read")
	b.ReportMetric(perRead(wr), "bridge-writes/read")
	b.ReportMetric(perRead(wb), "bridge-bytes-written/read")
	reportLatencies(b, lat, "read")
}

// procSwitches is the context switches, voluntary and not, of pid's live
// threads (/proc/pid/task/*/status).
func procSwitches(pid int) int64 {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var n int64
	for _, t := range tasks {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += c
			}
		}
	}
	return n
}

// procWrites is pid's write system calls so far (syscw in /proc/pid/io).
func procWrites(pid int) int64 { return procIO(pid, "syscw") }

// procIO is the counter field of /proc/pid/io (syscw: write system calls,
// wchar: bytes written, to pipes and sockets too).
func procIO(pid int, field string) int64 {
	io, _ := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, field+": "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
