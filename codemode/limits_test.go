package codemode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// TestRun_OutcomeAfterCancel: an outcome the runner sends after the run
// was cancelled (it had not yet seen the abort) is an abort, whatever it
// says, with its logs kept; one sent before the cancel stands. The stub
// runner sends a call, so that the test cancels at a known point, then
// waits for the bridge's abort line before it answers.
func TestRun_OutcomeAfterCancel(t *testing.T) {
	const head = `echo 'dsh-code 1'; read run; echo '{"call":{"id":1,"name":"read","args":{}}}'; `
	for _, tc := range []struct {
		name, runner string
		cancel       bool
		kind         string // "": a success
		message      string
	}{
		{"a success after the abort is an abort", head + `read abort; echo '{"outcome":{"logs":["late"],"result":1}}'`, true, KindAbort, "the run was cancelled"},
		{"a success without a result after the abort is an abort", head + `read abort; echo '{"outcome":{"logs":["late"]}}'`, true, KindAbort, "the run was cancelled"},
		{"an exception after the abort is an abort", head + `read abort; echo '{"outcome":{"logs":["late"],"err":{"kind":"exception","message":"Error: x"}}}'`, true, KindAbort, "the run was cancelled"},
		{"the runner's own abort keeps its message", head + `read abort; echo '{"outcome":{"logs":["late"],"err":{"kind":"abort","message":"stopped at line 3"}}}'`, true, KindAbort, "stopped at line 3"},
		{"a success with no cancel stands", head + `echo '{"outcome":{"logs":["late"],"result":1}}'; read abort`, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dispatch := func(string, jsonv.Value, Settle) {
				if tc.cancel {
					cancel()
				}
			}
			o := Run(ctx, script(t, tc.runner), Program{Code: "x", Names: []string{"read"}, Dispatch: dispatch})
			switch {
			case tc.kind == "" && (o.Err != nil || o.Result.String() != "1"):
				t.Errorf("got %+v %s, want the result 1", o.Err, o.Result)
			case tc.kind != "" && (o.Err == nil || o.Err.Kind != tc.kind || !strings.Contains(o.Err.Message, tc.message)):
				t.Errorf("got %+v, want kind %s with %q", o.Err, tc.kind, tc.message)
			}
			if !slices.Equal(o.Logs, []string{"late"}) {
				t.Errorf("got logs %q, want [late]", o.Logs)
			}
		})
	}
}

// TestRunCode_HoldsUntilYield: run_code's sub-calls submitted while one
// is in flight wait for the program to hand control back; a program that
// returns without awaiting them never starts them, however long it runs
// before it returns.
func TestRunCode_HoldsUntilYield(t *testing.T) {
	e := newCM(t, registry.Code, Config{})
	r := e.runCode(context.Background(), "h", "tools.read({path: 'a'}); tools.read({path: 'b'});\nfor (let i = 0; i < 3e6; i++) {}\nreturn 'done'")
	if r.IsError || resultText(r) != "done" {
		t.Fatalf("got %s %+v, want done", resultText(r), r.Error)
	}
	e.obs.mu.Lock()
	defer e.obs.mu.Unlock()
	var started []string
	for _, ev := range e.obs.events {
		if id, ok := strings.CutPrefix(ev, "start "); ok {
			started = append(started, id)
		}
	}
	if !slices.Equal(started, []string{"h:code:1"}) {
		t.Errorf("got started %v, want [h:code:1] (the second waits for a yield that never comes)", started)
	}
}

// TestRunCode_ResultAfterCancel: a sub-call that succeeded but whose commit
// the turn's cancellation overtook (here the dispatch log cancels while it
// logs the result) is settled in the program as a failure: its value never
// reaches a cancelled program. The stub runner writes what the bridge sends
// it to a file, so that the test reads the settlement whatever order it
// and the abort arrive in.
func TestRunCode_ResultAfterCancel(t *testing.T) {
	heard := filepath.Join(t.TempDir(), "heard")
	runner := script(t, `echo 'dsh-code 1'; read run; echo '{"call":{"id":1,"name":"read","args":{"path":"a"}}}'
while read line; do echo "$line" >> `+heard+`; case "$line" in *'"settle"'*) break;; esac; done
echo '{"outcome":{"result":1}}'`)
	e := newCM(t, registry.Code, Config{Runner: runner})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.rc.OnDispatchLog(func(d DispatchLog, next func() []card.Content) ([]card.Content, error) {
		if d.Name == "read" && !d.IsError {
			cancel() // the turn ends while the result commits
		}
		return next(), nil
	})
	r := e.runCode(ctx, "c", "unused: the stub runner plays the program")
	if !r.IsError || !strings.HasPrefix(r.Error.Message, "code run failed (abort)") {
		t.Fatalf("got %s %+v, want an abort", resultText(r), r.Error)
	}
	data, err := os.ReadFile(heard)
	if err != nil {
		t.Fatal(err)
	}
	var settle string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, `"settle"`) {
			settle = line
		}
	}
	if !strings.Contains(settle, `"ok":false`) || !strings.Contains(settle, "result discarded") || strings.Contains(settle, "contents of a") {
		t.Errorf("the program was sent %q, want the result discarded", settle)
	}
}
