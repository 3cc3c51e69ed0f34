//go:build linux

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
// bridge and, separately, for its dsh-highlight helper (and the two
// together, what the machine pays per read): the prompt, the
// model requests and the session's own costs cancel out; what is left is
// the read, its cards and tokens, its log event and its share of the next
// model request.
//
// It also reports, per read and just as marginally, the bridge's context
// switches (its threads' sleeps and wake-ups, which on a paravirtualized
// VM cost more than the work between them) and its write system calls
// (each one to stdout wakes the editor).
//
// With DSH_BENCH_TLS=1 the model is served over HTTPS, as the real
// service is (every client, the floors included, then decrypts each
// event and encrypts each request).
//
// With DSH_BENCH_PEER naming another dsh-bridge binary (an earlier build),
// that build runs beside this one, each iteration's prompts alternating
// between the two (the order swapping every iteration), and the peer's
// figures are reported with a "peer-" prefix, with the ratio of the two
// CPU figures: on a machine whose speed drifts from minute to minute, only
// prompts interleaved like this compare.
//
// With DSH_BENCH_PROMPTS=1 (or 25) each iteration plays only that kind of
// prompt, and only its CPU per prompt is reported: two profiles of the
// bridge (DSH_BENCH_PROFILE), one of each kind over the same number of
// iterations, differ by 24 reads, place by place (how BENCHMARKS.md splits
// a read's CPU since the fifteenth session).
//
// In the same iterations, the same turns (1 call, then 25) are streamed to
// two clients that only read them, a Go one through net/http and curl
// (floorClient): their CPU per call is the floor the model's stream sets
// under any client's cost per read, reported beside the bridge's.
func BenchmarkReadCPU(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	const many = 25
	m := benchFakeModel(b)
	playOne, playMany := benchPrompts(b, many)
	var mu sync.Mutex
	reads, iter, seq, subject := 1, 0, 0, 0
	m.respond = func(req chatRequest) fakeTurn {
		mu.Lock()
		defer mu.Unlock()
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			return fakeTurn{text: "ok"}
		}
		var calls []fakeCall
		for j := range reads {
			seq++
			calls = append(calls, fakeCall{fmt.Sprintf("c%d", seq), "read", args("file_path", fmt.Sprintf("s%d-i%d-f%d.go", subject, iter, j))})
		}
		return fakeTurn{calls: calls}
	}
	env := m.benchEnv("DSH_LOG_LEVEL=error")
	subjects := []*readSubject{{e: startEditorStdio(b, binary, benchStdio(b), env...), m: m}}
	if peer := os.Getenv("DSH_BENCH_PEER"); peer != "" {
		subjects = append(subjects, &readSubject{e: startEditorStdio(b, peer, benchStdio(b), env...), m: m})
	}
	for _, s := range subjects {
		s.e.noValidate = true
		s.e.initialize(benchCaps())
	}
	write := func(k, i int) {
		for j := range many {
			from := (i*7 + j*100) % (len(lines) - 100)
			text := fmt.Sprintf("// iteration %d, file %d\n", i, j) + strings.Join(lines[from:from+99], "")
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d-i%d-f%d.go", k, i, j)), []byte(text), 0o644)
		}
	}
	play := func(k, n int, count bool) {
		mu.Lock()
		reads, subject = n, k
		iter++ // each prompt reads files of its own
		i := iter
		mu.Unlock()
		b.StopTimer()
		write(k, i)
		b.StartTimer()
		subjects[k].play(b, dir, n, count)
	}
	floors, small := floorClients(b), writeRequest(b, []byte(smallRequest))
	floor := func(f *floorClient, n, slot int) {
		mu.Lock()
		reads, iter = n, iter+1
		mu.Unlock()
		if got := f.play(b, m, small, 1, slot); got < 2*n+3 { // a call is its name and at least a piece of arguments
			b.Fatalf("%s saw %d events of a %d-call answer", f.name, got, n)
		}
	}
	for k := range subjects {
		play(k, many, false) // warm up: the helper's start
	}
	for _, f := range floors {
		floor(f, many, -1)
	}
	for round := 0; b.Loop(); round++ {
		for j := range subjects {
			k := (j + round) % len(subjects) // the order swaps every iteration
			if playOne {
				play(k, 1, true)
			}
			if playMany {
				play(k, many, true)
			}
		}
		for j := range floors {
			f := floors[(j+round)%len(floors)]
			floor(f, 1, 0)
			floor(f, many, 1)
		}
	}
	for k, s := range subjects {
		prefix := ""
		if k > 0 {
			prefix = "peer-"
		}
		if !playOne || !playMany {
			s.reportPrompts(b, prefix, many)
			continue
		}
		s.report(b, prefix, many)
	}
	for _, f := range floors {
		perCall := f.marginal(b.N, many-1)
		b.ReportMetric(perCall, "floor-"+f.name+"-cpu-µs/call")
		if playOne && playMany {
			b.ReportMetric(subjects[0].cpuPerRead(b.N, many)/perCall, "ratio-bridge-read/floor-"+f.name)
		}
	}
	if len(subjects) == 2 && playOne && playMany {
		b.ReportMetric(subjects[0].cpuPerRead(b.N, many)/subjects[1].cpuPerRead(b.N, many), "ratio-bridge-cpu/read")
		b.ReportMetric(subjects[0].withHelperPerRead(b.N, many)/subjects[1].withHelperPerRead(b.N, many), "ratio-with-helper-cpu/read")
	}
}

// readSubject is one dsh-bridge under BenchmarkReadCPU and what its
// prompts cost.
type readSubject struct {
	e                    *editor
	m                    *fakeModel
	one, all, hOne, hAll time.Duration // bridge and helper CPU of the 1-read and 25-read prompts
	sw, wr, wb           [2]int64      // context switches, write system calls, bytes written: [1-read, 25-read]
	lat                  []time.Duration
}

// freshSession opens a session in dir and forgets what the editor
// recorded so far, so that what it records next is that session's.
func (e *editor) freshSession(dir string) string {
	sess := e.newSession(dir)
	e.mu.Lock()
	e.updates, e.raw, e.stamps = nil, nil, nil
	e.mu.Unlock()
	return sess
}

// play runs one prompt of n reads in a fresh session; count adds its
// costs to the subject's.
func (s *readSubject) play(b *testing.B, dir string, n int, count bool) {
	e := s.e
	sess := e.freshSession(dir)
	pid := e.cmd.Process.Pid
	c0, h0 := procCPU(pid), helperCPU(pid)
	sw0, wr0, wb0 := procSwitches(pid), procWrites(pid), procIO(pid, "wchar")
	if stop := e.prompt(sess, "read"); stop != "end_turn" {
		b.Fatalf("stop reason %q", stop)
	}
	bridge, helper := procCPU(pid)-c0, helperCPU(pid)-h0
	sw, wr, wb := procSwitches(pid)-sw0, procWrites(pid)-wr0, procIO(pid, "wchar")-wb0
	lat := e.sentLatencies(s.m)
	if len(lat) != n {
		b.Fatalf("%d of %d reads completed", len(lat), n)
	}
	e.call("session/close", map[string]any{"sessionId": sess})
	if !count {
		return
	}
	k := min(n-1, 1)
	s.sw[k] += sw
	s.wr[k] += wr
	s.wb[k] += wb
	if n == 1 {
		s.one, s.hOne = s.one+bridge, s.hOne+helper
	} else {
		s.all, s.hAll = s.all+bridge, s.hAll+helper
		s.lat = append(s.lat, lat...)
	}
}

// cpuPerRead is the bridge's marginal CPU per read, in µs.
func (s *readSubject) cpuPerRead(n, many int) float64 {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	return (per(s.all) - per(s.one)) / float64(many-1)
}

// withHelperPerRead is the marginal CPU per read of the bridge and its
// dsh-highlight helper together, in µs: what the machine pays for a read,
// wherever the work is done.
func (s *readSubject) withHelperPerRead(n, many int) float64 {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	return s.cpuPerRead(n, many) + (per(s.hAll)-per(s.hOne))/float64(many-1)
}

// benchPrompts is which of BenchmarkReadCPU's prompts its iterations
// play: both, or with DSH_BENCH_PROMPTS only the 1-read or the many-read
// one.
func benchPrompts(b *testing.B, many int) (one, all bool) {
	switch v := os.Getenv("DSH_BENCH_PROMPTS"); v {
	case "":
		return true, true
	case "1":
		return true, false
	case strconv.Itoa(many):
		return false, true
	default:
		b.Fatalf("DSH_BENCH_PROMPTS=%q: want 1 or %d", v, many)
		return false, false
	}
}

// reportPrompts reports the CPU per prompt of the one kind of prompt
// played (DSH_BENCH_PROMPTS): no marginal figure can be made of it.
func (s *readSubject) reportPrompts(b *testing.B, prefix string, many int) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	if s.all > 0 {
		b.ReportMetric(per(s.all), fmt.Sprintf("%sbridge-cpu-µs/%d-read-prompt", prefix, many))
	} else {
		b.ReportMetric(per(s.one), prefix+"bridge-cpu-µs/1-read-prompt")
	}
}

func (s *readSubject) report(b *testing.B, prefix string, many int) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(s.cpuPerRead(b.N, many), prefix+"bridge-cpu-µs/read")
	b.ReportMetric((per(s.hAll)-per(s.hOne))/float64(many-1), prefix+"helper-cpu-µs/read")
	b.ReportMetric(s.withHelperPerRead(b.N, many), prefix+"with-helper-cpu-µs/read")
	b.ReportMetric(per(s.one), prefix+"bridge-cpu-µs/1-read-prompt")
	perRead := func(v [2]int64) float64 { return float64(v[1]-v[0]) / float64(b.N) / float64(many-1) }
	b.ReportMetric(perRead(s.sw), prefix+"bridge-switches/read")
	b.ReportMetric(perRead(s.wr), prefix+"bridge-writes/read")
	b.ReportMetric(perRead(s.wb), prefix+"bridge-bytes-written/read")
	reportLatencies(b, s.lat, prefix+"read-since-sent")
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
