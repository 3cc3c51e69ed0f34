package codemode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// script writes a runner that is a shell script: a runner that breaks the
// protocol or misbehaves in ways the real one does not.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "runner")
	proctest.WriteExec(t, p, []byte("#!/bin/sh\n"+body+"\n"))
	return p
}

// recorder is a Dispatch that remembers its calls and settles none.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) dispatch(name string, args jsonv.Value, _ Settle) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, name+" "+args.String())
}

func TestRun_Runner(t *testing.T) {
	for _, tc := range []struct {
		name     string
		runner   string // a script body; "" runs the path below
		path     string
		cancel   time.Duration // cancel the run after this long
		timeout  time.Duration
		kind     string
		contains []string
		result   string
		calls    int // dispatched before the failure
	}{
		{name: "the real runner runs a program", path: os.Args[0], result: `42`},
		{name: "no runner installed", path: "", kind: KindWorkerExit, contains: []string{"dsh-code, is not installed", "DSH_CODE_RUNNER"}},
		{name: "a runner that does not exist", path: "/nonexistent/dsh-code", kind: KindWorkerExit, contains: []string{"the code runner did not start", "no such file"}},
		{name: "a binary that is not the runner", runner: "echo hello; cat >/dev/null", kind: KindWorkerExit, contains: []string{`protocol line "hello", want "dsh-code 1"`}},
		{name: "a runner that dies mid-run quotes its stderr", runner: "echo 'dsh-code 1'; read run; echo 'panic: boom' >&2; exit 2",
			kind: KindWorkerExit, contains: []string{"exited before the run ended (exit status 2): panic: boom"}},
		{name: "a runner that ignores an abort is killed", runner: "echo 'dsh-code 1'; sleep 60 & wait", cancel: 50 * time.Millisecond,
			kind: KindAbort, contains: []string{"the run was cancelled"}},
		{name: "a runner past its wall clock is killed", runner: "echo 'dsh-code 1'; sleep 60 & wait", timeout: 100 * time.Millisecond,
			kind: KindTimeout, contains: []string{"wall-clock ceiling reached (100ms)"}},
		{name: "a line that is not the protocol's", runner: "echo 'dsh-code 1'; echo '{\"call\":'; sleep 60",
			kind: KindWorkerExit, contains: []string{"broke the protocol (a line that is not the protocol's"}},
		{name: "a call number used twice", runner: `echo 'dsh-code 1'; echo '{"call":{"id":1,"name":"read","args":{}}}'; echo '{"call":{"id":1,"name":"read","args":{}}}'; sleep 60`,
			kind: KindWorkerExit, contains: []string{"call number 1 again"}, calls: 1},
		{name: "an unknown kind", runner: `echo 'dsh-code 1'; read run; echo '{"outcome":{"err":{"kind":"fine","message":"x"}}}'`,
			kind: KindWorkerExit, contains: []string{"unknown kind: fine"}},
		{name: "a call of a tool the program was not given is refused, not dispatched",
			runner: `echo 'dsh-code 1'; read run; echo '{"call":{"id":1,"name":"rm","args":{}}}'; read settle; printf '{"outcome":{"result":%s}}\n' "$settle"`,
			result: `{"settle":{"id":1,"ok":false,"error":"no tool named rm is callable here"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if tc.runner != "" {
				path = script(t, tc.runner)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel > 0 {
				time.AfterFunc(tc.cancel, cancel)
			}
			rec := &recorder{}
			start := time.Now()
			o := Run(ctx, path, Program{Code: "return 6 * 7", Names: []string{"read"}, Dispatch: rec.dispatch, Timeout: tc.timeout})
			if took := time.Since(start); took > stopGrace+5*time.Second {
				t.Errorf("the run took %v", took)
			}
			if tc.kind == "" {
				if o.Err != nil || o.Result.String() != tc.result {
					t.Fatalf("got %+v %s, want %s", o.Err, o.Result, tc.result)
				}
			} else {
				if o.Err == nil || o.Err.Kind != tc.kind {
					t.Fatalf("got %+v, want kind %s", o.Err, tc.kind)
				}
				for _, want := range tc.contains {
					if !strings.Contains(o.Err.Message, want) {
						t.Errorf("message %q lacks %q", o.Err.Message, want)
					}
				}
			}
			if len(rec.calls) != tc.calls {
				t.Errorf("dispatched %v", rec.calls)
			}
		})
	}
}

// TestRun_Kinds runs programs that fail in each of the contract's kinds
// through the real runner: each arrives with its own kind and message,
// not as some other kind.
func TestRun_Kinds(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		prog       func(*Program)
		kind       string
		message    string
	}{
		{"an exception", "throw new Error('boom')", nil, KindException, "Error: boom"},
		{"a result that is not JSON", "return () => 1", nil, KindInvalidOutput, "program completion must be lossless JSON"},
		{"logs past the output limit", "for (let i = 0; i < 1000; i++) console.log('line ' + i)", func(p *Program) { p.MaxOutputBytes = 200 }, KindOutputLimit, "outer output exceeded 200 bytes"},
		{"a result past the output limit", "return 'x'.repeat(500)", func(p *Program) { p.MaxOutputBytes = 200 }, KindOutputLimit, "outer output exceeded 200 bytes"},
		{"past the timeout", "while (true) {}", func(p *Program) { p.Timeout = 200 * time.Millisecond }, KindTimeout, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Program{Code: tc.code, Dispatch: (&recorder{}).dispatch}
			if tc.prog != nil {
				tc.prog(&p)
			}
			o := Run(context.Background(), os.Args[0], p)
			if o.Err == nil || o.Err.Kind != tc.kind || !strings.Contains(o.Err.Message, tc.message) {
				t.Fatalf("got %+v %s, want kind %s with %q", o.Err, o.Result, tc.kind, tc.message)
			}
		})
	}
}

// TestRun_MemoryCap allocates a huge string in one step, which the heap
// guard's sampling could miss: the runner's memory cap stops it at once.
func TestRun_MemoryCap(t *testing.T) {
	o := Run(context.Background(), os.Args[0], Program{Code: "return 'x'.repeat(2 ** 31).length", Dispatch: (&recorder{}).dispatch, HeapHeadroom: 64 << 20})
	if o.Err == nil || o.Err.Kind != KindWorkerExit || o.Err.Message != "heap limit exceeded (64 MiB): an allocation went past the runner's memory cap" {
		t.Fatalf("got %+v %s", o.Err, o.Result)
	}
	// A run within its headroom is untouched by the cap.
	o = Run(context.Background(), os.Args[0], Program{Code: "return 'x'.repeat(2 ** 24).length", Dispatch: (&recorder{}).dispatch, HeapHeadroom: 64 << 20})
	if o.Err != nil || o.Result.String() != "16777216" {
		t.Fatalf("got %+v %s", o.Err, o.Result)
	}
}

// TestRun_RunnerSettles runs a program through the real runner: calls
// cross the pipe with their lossless arguments and come back settled, a
// rejection included, and the logs come with the result.
func TestRun_RunnerSettles(t *testing.T) {
	var wg sync.WaitGroup
	defer wg.Wait()
	dispatch := func(name string, args jsonv.Value, settle Settle) {
		wg.Go(func() {
			if name == "fail" {
				settle(jsonv.Value{}, "no such file", false)
				return
			}
			settle(jsonv.MustParse(`{"echo":`+args.String()+`}`), "", true)
		})
	}
	code := `const a = await tools.read({n: 12345678901234567890, s: "é\u2028"});
let err = "";
try { await tools.fail({}); } catch (e) { err = e.name + ": " + e.message; }
console.log("done");
return {a, err};`
	o := Run(context.Background(), os.Args[0], Program{Code: code, Names: []string{"read", "fail"}, Dispatch: dispatch})
	want := "{\"a\":{\"echo\":{\"n\":12345678901234567000,\"s\":\"é\u2028\"}},\"err\":\"ToolCallError: no such file\"}"
	if o.Err != nil || o.Result.String() != want || strings.Join(o.Logs, "|") != "done" {
		t.Fatalf("got %+v %s %q\nwant %s", o.Err, o.Result, o.Logs, want)
	}
}

// TestRun_SubCallResultsRedacted: a secret in a sub-call's settled value
// or in its error message reaches the program already redacted, so a
// program that reverses it cannot slip it past the redaction of its own
// result.
func TestRun_SubCallResultsRedacted(t *testing.T) {
	const secret = "cm-secret-5be1d0c9"
	secrets.Remember(secret)
	var wg sync.WaitGroup
	defer wg.Wait()
	dispatch := func(name string, _ jsonv.Value, settle Settle) {
		wg.Go(func() {
			if name == "fail" {
				settle(jsonv.Value{}, "denied for "+secret, false)
				return
			}
			settle(jsonv.MustParse(`{"s":"token=`+secret+`"}`), "", true)
		})
	}
	code := `const rev = s => s.split("").reverse().join("");
const v = await tools.read({});
let err = "";
try { await tools.fail({}); } catch (e) { err = e.message; }
return {value: rev(v.s), error: rev(err)};`
	o := Run(context.Background(), os.Args[0], Program{Code: code, Names: []string{"read", "fail"}, Dispatch: dispatch})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	var got struct{ Value, Error string }
	if err := o.Result.Decode(&got); err != nil {
		t.Fatal(err)
	}
	rev := func(s string) string {
		r := []rune(s)
		slices.Reverse(r)
		return string(r)
	}
	for _, tc := range []struct{ name, got, want string }{
		{"value", rev(got.Value), "token=" + secrets.Mark},
		{"error", rev(got.Error), "denied for " + secrets.Mark},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("the program saw %q, want %q", tc.got, tc.want)
			}
		})
	}
}

// TestRun_Spare checks that a run leaves a spare runner behind, that the
// next run of the same runner takes it, and that a dead spare or one of
// another path is not used.
func TestRun_Spare(t *testing.T) {
	defer StopSpare()
	run := func(path string) Outcome {
		return Run(context.Background(), path, Program{Code: "return 1", Dispatch: (&recorder{}).dispatch})
	}
	pidOfSpare := func() int {
		spare.wg.Wait()
		spare.Lock()
		defer spare.Unlock()
		if spare.rp == nil {
			return 0
		}
		return spare.rp.cmd.Process.Pid
	}
	if o := run(os.Args[0]); o.Err != nil {
		t.Fatal(o.Err)
	}
	first := pidOfSpare()
	if first == 0 {
		t.Fatal("no spare after a run")
	}
	starts := runnerStarts.Load()
	if o := run(os.Args[0]); o.Err != nil {
		t.Fatal(o.Err)
	}
	if second := pidOfSpare(); second == 0 || second == first {
		t.Fatalf("spare %d after the second run, %d before: the run did not take it", second, first)
	}
	if n := runnerStarts.Load() - starts; n != 1 {
		t.Errorf("%d runners started for a run with a spare ready, want 1 (the next spare)", n)
	}
	spare.Lock()
	spare.rp.kill() // a spare that died while it waited
	spare.Unlock()
	if o := run(os.Args[0]); o.Err != nil {
		t.Fatalf("a run after the spare died: %v", o.Err)
	}
	spare.wg.Wait()
	starts = runnerStarts.Load()
	if o := run("/nonexistent/dsh-code"); o.Err == nil || o.Err.Kind != KindWorkerExit {
		t.Fatalf("a runner that does not exist: %+v", o.Err)
	}
	spare.wg.Wait()
	if n := runnerStarts.Load() - starts; n != 1 {
		t.Errorf("%d starts for a runner that does not exist, want 1 (no spare for it)", n)
	}
	other := script(t, `echo 'dsh-code 1'; read run; echo '{"outcome":{"result":"other"}}'`)
	if o := run(other); o.Err != nil || o.Result.String() != `"other"` {
		t.Fatalf("a run of another runner: %+v %s", o.Err, o.Result)
	}
}

// TestRun_SpareHeardNotRerun: a spare runner that dies after the program
// reached it (it sent a call) ends the run as worker-exit; the program is
// not run again on a new runner, which would repeat its tool calls.
func TestRun_SpareHeardNotRerun(t *testing.T) {
	defer StopSpare()
	path := script(t, `echo 'dsh-code 1'; read run; echo '{"call":{"id":1,"name":"read","args":{}}}'; exit 3`)
	run := func() (Outcome, []string) {
		rec := &recorder{}
		o := Run(context.Background(), path, Program{Code: "x", Names: []string{"read"}, Dispatch: rec.dispatch})
		return o, rec.calls
	}
	if o, calls := run(); o.Err == nil || o.Err.Kind != KindWorkerExit || len(calls) != 1 {
		t.Fatalf("the first run: %+v, dispatched %v", o.Err, calls)
	}
	spare.wg.Wait()
	spare.Lock()
	ready := spare.rp != nil && spare.path == path
	spare.Unlock()
	if !ready {
		t.Fatal("no spare of the script after its run")
	}
	starts := runnerStarts.Load()
	o, calls := run()
	if o.Err == nil || o.Err.Kind != KindWorkerExit || !strings.Contains(o.Err.Message, "exit status 3") {
		t.Errorf("got %+v, want worker-exit with the runner's exit status", o.Err)
	}
	if len(calls) != 1 {
		t.Errorf("dispatched %v, want the one call once", calls)
	}
	spare.wg.Wait()
	if n := runnerStarts.Load() - starts; n != 1 {
		t.Errorf("%d runners started, want 1 (the next spare): the program ran again", n)
	}
}
