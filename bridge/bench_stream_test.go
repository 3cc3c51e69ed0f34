//go:build linux

package bridge_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkStreamCPU measures what one more streamed token of an answer
// costs the bridge, as a person reading a long answer streaming into the
// editor's chat spends it: each iteration plays, in fresh sessions, a
// prompt answered with one token of text and one answered with 400 (a
// token some 4 bytes, as the fake streams them, from the prose of Go's
// documentation), and the marginal CPU per token is the difference over
// 399. Each token reaches the editor as an agent_message_chunk, and the
// benchmark checks that the editor saw the answer whole, in order.
//
// It reports, per token and just as marginally, the bridge's context
// switches and write system calls too. DSH_BENCH_PEER runs an earlier
// build beside this one, interleaved, and reports its figures with a
// "peer-" prefix and the ratio, as BenchmarkReadCPU does; the floor
// clients (a Go one and curl) are streamed the same answers in the same
// iterations, and their CPU per token is reported beside the bridge's.
func BenchmarkStreamCPU(b *testing.B) {
	const many = 400
	doc, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "doc.go"))
	if err != nil {
		b.Fatal(err)
	}
	prose := strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", "")), " ")
	long := prose[:many*4] // ASCII: 4 bytes a token
	m := newFakeModel(b)
	m.pace = benchPace(b)
	var mu sync.Mutex
	answer := "ok"
	m.respond = func(req chatRequest) fakeTurn {
		mu.Lock()
		defer mu.Unlock()
		return fakeTurn{text: answer}
	}
	env := []string{"DSH_BASE_URL=" + m.srv.URL, "DSH_LOG_LEVEL=error", "DSH_CPUPROFILE=" + os.Getenv("DSH_BENCH_PROFILE")}
	subjects := []*streamSubject{{e: startEditorStdio(b, binary, benchStdio(b), env...)}}
	if peer := os.Getenv("DSH_BENCH_PEER"); peer != "" {
		subjects = append(subjects, &streamSubject{e: startEditorStdio(b, peer, benchStdio(b), env...)})
	}
	dir := b.TempDir()
	for _, s := range subjects {
		s.e.noValidate = true
		s.e.initialize(benchCaps())
	}
	say := func(text string) {
		mu.Lock()
		answer = text
		mu.Unlock()
	}
	floors, small := floorClients(b), writeRequest(b, []byte(smallRequest))
	floor := func(f *floorClient, text string, slot int) {
		say(text)
		if got, want := f.play(b, m, small, 1, slot), len(tokenPieces(text)); got < want {
			b.Fatalf("%s saw %d events of a %d-token answer", f.name, got, want)
		}
	}
	for _, s := range subjects {
		say(long)
		s.play(b, dir, long, -1) // warm up
	}
	for round := 0; b.Loop(); round++ {
		for j := range subjects {
			s := subjects[(j+round)%len(subjects)] // the order swaps every iteration
			say("ok")
			s.play(b, dir, "ok", 0)
			say(long)
			s.play(b, dir, long, 1)
		}
		for j := range floors {
			f := floors[(j+round)%len(floors)]
			floor(f, "ok", 0)
			floor(f, long, 1)
		}
	}
	for k, s := range subjects {
		prefix := ""
		if k > 0 {
			prefix = "peer-"
		}
		s.report(b, prefix, many-1)
	}
	for _, f := range floors {
		perToken := f.marginal(b.N, many-1)
		b.ReportMetric(perToken, "floor-"+f.name+"-cpu-µs/token")
		b.ReportMetric(subjects[0].perToken(b.N, many-1)/perToken, "ratio-bridge-token/floor-"+f.name)
	}
	if len(subjects) == 2 {
		b.ReportMetric(subjects[0].perToken(b.N, many-1)/subjects[1].perToken(b.N, many-1), "ratio-bridge-cpu/token")
	}
}

// streamSubject is one dsh-bridge under BenchmarkStreamCPU and what its
// prompts cost: [0] the one-token answers, [1] the long ones.
type streamSubject struct {
	e      *editor
	cpu    [2]time.Duration
	sw, wr [2]int64
}

// play runs one prompt, answered with text, in a fresh session, checks
// that the editor saw text whole, and adds its costs to slot (< 0: not
// counted).
func (s *streamSubject) play(b *testing.B, dir, text string, slot int) {
	e := s.e
	sess := e.freshSession(dir)
	pid := e.cmd.Process.Pid
	c0, sw0, wr0 := procCPU(pid), procSwitches(pid), procWrites(pid)
	if stop := e.prompt(sess, "say something"); stop != "end_turn" {
		b.Fatalf("stop reason %q", stop)
	}
	cpu, sw, wr := procCPU(pid)-c0, procSwitches(pid)-sw0, procWrites(pid)-wr0
	if got := e.agentText(); got != text {
		b.Fatalf("the editor saw %d bytes of a %d-byte answer", len(got), len(text))
	}
	e.call("session/close", map[string]any{"sessionId": sess})
	if slot >= 0 {
		s.cpu[slot] += cpu
		s.sw[slot] += sw
		s.wr[slot] += wr
	}
}

// perToken is the bridge's marginal CPU per token, in µs, over runs
// rounds of more tokens each.
func (s *streamSubject) perToken(runs, more int) float64 {
	return float64((s.cpu[1] - s.cpu[0]).Microseconds()) / float64(runs) / float64(more)
}

func (s *streamSubject) report(b *testing.B, prefix string, more int) {
	per := func(v [2]int64) float64 { return float64(v[1]-v[0]) / float64(b.N) / float64(more) }
	b.ReportMetric(s.perToken(b.N, more), prefix+"bridge-cpu-µs/token")
	b.ReportMetric(per(s.sw), prefix+"bridge-switches/token")
	b.ReportMetric(per(s.wr), prefix+"bridge-writes/token")
}
