package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/rpctest"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"tools prints the built-in schemas", []string{"tools"}, 0, "", ""},
		{"unknown subcommand", []string{"bogus"}, 2, "", `unknown subcommand "bogus"`},
		{"version", []string{"version"}, 0, versionText(buildSettings()), ""},
		{"--version", []string{"--version"}, 0, versionText(buildSettings()), ""},
		{"a negative stream idle", []string{"--stream-idle", "-5s"}, 2, "", `--stream-idle must be a duration of 0 (never) or more (got "-5s")`},
		{"a stream idle that is no duration", []string{"--stream-idle", "soon"}, 2, "", `(got "soon")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tc.args, strings.NewReader(""), &out, &errOut); code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			if tc.wantStdout != "" {
				if out.String() != tc.wantStdout {
					t.Errorf("stdout %q, want %q", out.String(), tc.wantStdout)
				}
			} else if tc.wantCode == 0 {
				var schemas []struct {
					Name       string          `json:"name"`
					Parameters json.RawMessage `json:"parameters"`
				}
				if err := json.Unmarshal(out.Bytes(), &schemas); err != nil || len(schemas) != 10 || schemas[0].Name != "read" {
					t.Errorf("schemas: %v %s", err, out.String())
				}
			} else if out.String() != tc.wantStdout {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantStdout)
			}
			if !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", errOut.String(), tc.wantStderr)
			}
			if tc.wantCode == 0 && tc.wantStdout == "" && !json.Valid(out.Bytes()) {
				t.Errorf("stdout is not JSON")
			}
		})
	}
}

// TestParseStreamIdle maps the flag onto model.ChatConfig.StreamIdle.
func TestParseStreamIdle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, true},
		{"0", -1, true},
		{"0s", -1, true},
		{"45s", 45 * time.Second, true},
		{"-1s", 0, false},
		{"later", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got, ok := parseStreamIdle(tc.in); got != tc.want || ok != tc.ok {
				t.Errorf("%v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestDemo builds the binary and runs `dsh-bridge demo` as a newcomer would.
func TestDemo(t *testing.T) {
	bin := buildBinary(t)
	start := time.Now()
	cmd := exec.Command(bin, "demo", "--no-color")
	cmd.Env = append(os.Environ(), "DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the demo took %v", d)
	}
	for _, want := range []string{
		"thinking › The user wants the greeting fixed.",
		"▶ Read greet.go [read]",
		`   6 │ 	return "Hello, wrold"`,
		"? Allow Edit greet.go?",
		"@@ -2,6 +2,5 @@",
		`+	return "Hello, world"`,
		"exit 0",
		"demo: end_turn after 4 tool calls (4 completed, 0 failed), 2 approvals",
		"session log: ",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestDemo_Colour runs the demo in colour: the read card (of Go, whose
// tokens the bridge makes itself) waits for its tokens and is printed
// with them; with DSH_HIGHLIGHTER=off it is printed plain.
func TestDemo_Colour(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name, highlighter string
		want, notWant     string
	}{
		{"with the helper", "", "\x1b[38;5;81mreturn\x1b[0m \x1b[38;5;186m\"Hello, wrold\"\x1b[0m", ""},
		{"without it", "off", "│\x1b[0m \treturn \"Hello, wrold\"\x1b[0m", "\x1b[38;5;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "demo")
			cmd.Env = append(os.Environ(), "DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=", "NO_COLOR=")
			if tc.highlighter != "" {
				cmd.Env = append(cmd.Env, "DSH_HIGHLIGHTER="+tc.highlighter)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("demo failed: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("the read card lacks %q:\n%q", tc.want, out)
			}
			if _, card, _ := strings.Cut(string(out), "Read greet.go"); tc.notWant != "" && strings.Contains(card[:min(len(card), 600)], tc.notWant) {
				t.Errorf("the read card has %q:\n%q", tc.notWant, card)
			}
		})
	}
}

// TestDemo_Code runs `dsh-bridge demo --code`: one run_code program reads
// two files, edits one and runs a command, each shown nested under it.
func TestDemo_Code(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "demo", "--code", "--no-color")
	cmd.Env = append(os.Environ(), "DSH_API_KEY=", "DEEPSEEK_API_KEY=", "OPENAI_API_KEY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"▶ Read the code, fix the typo, show the result [execute]",
		"▶   ↳ Read main.go [read]",
		"▶   ↳ Read greet.go [read]",
		"? Allow Edit greet.go?",
		`+	return "Hello, world"`,
		"main.go calls greet() on line 6",
		`"fixedLine": 6,`,
		"demo: end_turn after 5 tool calls (5 completed, 0 failed), 2 approvals",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestRun_LeavesGOMAXPROCS: serving, initialize included, the bridge runs
// on the threads Go chose (or the environment's GOMAXPROCS).
func TestRun_LeavesGOMAXPROCS(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs) })
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	t.Setenv("DSH_HIGHLIGHTER", "off")
	runtime.GOMAXPROCS(3)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"
	var out, errOut bytes.Buffer
	if code := run(nil, strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), `"protocolVersion":1`) {
		t.Fatalf("no initialize answer: %q", out.String())
	}
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS %d after initialize, want 3", got)
	}
}

// TestRun_TunesTheCollectorAfterEachTurn: once a session's history is a
// good part of the heap (a 4 MiB prompt, held as text and encoding), the
// bridge lowers GOGC when the turn ends (heapgoal), unless GOGC is set.
func TestRun_TunesTheCollectorAfterEachTurn(t *testing.T) {
	script := filepath.Join(t.TempDir(), "turn.jsonl")
	if err := os.WriteFile(script, []byte(`{"text":"ok"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DSH_STATE_DIR", t.TempDir())
	t.Setenv("DSH_HIGHLIGHTER", "off")
	t.Setenv("DSH_MODEL", "script:"+script)
	procs := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs) })
	live := make([]byte, 64<<20) // the rest of the heap, kept at 100 %
	big := strings.Repeat("x", 4<<20)
	for _, tc := range []struct {
		name, gogc string
		lowered    bool
	}{{"GOGC unset", "", true}, {"GOGC set", "50", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			defer debug.SetGCPercent(debug.SetGCPercent(100))
			runtime.GC() // the live heap as of the last collection
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan int, 1)
			var errOut bytes.Buffer
			go func() { done <- run(nil, inR, outW, &errOut); outW.Close() }()
			rpc := rpctest.New(outR, inW)
			answer := func(id int, method, params string) string { t.Helper(); return rpc.Call(t, id, method, params) }
			answer(1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
			var created struct {
				Result struct{ SessionID string }
			}
			if err := json.Unmarshal([]byte(answer(2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, t.TempDir()))), &created); err != nil || created.Result.SessionID == "" {
				t.Fatalf("session/new: %v", err)
			}
			if got := answer(3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}`, created.Result.SessionID, big)); !strings.Contains(got, "end_turn") {
				t.Fatalf("prompt: %s", got)
			}
			inW.Close()
			go io.Copy(io.Discard, outR)
			if code := <-done; code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if got := debug.SetGCPercent(100); (got < 100) != tc.lowered || got <= 0 {
				t.Errorf("GOGC %d after a turn; lowered below 100: want %v", got, tc.lowered)
			}
		})
	}
	runtime.KeepAlive(live)
}
