package jsvm

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
)

// writes records each Write: what the bridge can receive at once.
type writes struct {
	mu     sync.Mutex
	chunks []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.chunks = append(w.chunks, string(p))
	return len(p), nil
}

func runLine(code string) string {
	b, _ := json.Marshal(coderun.ToRunner{Run: &coderun.RunRequest{Code: code, Names: []string{"a", "b"}, TimeoutMs: 5000, MaxOutputBytes: 1 << 10}})
	return string(b) + "\n"
}

func TestServe(t *testing.T) {
	t.Run("the calls of one synchronous part leave in one write", func(t *testing.T) {
		old := flushDelay
		flushDelay = time.Hour // only the program's own hand-backs flush
		defer func() { flushDelay = old }()
		w := &writes{}
		if err := Serve(strings.NewReader(runLine("tools.a({}); tools.b({x: 1}); return 1")), w, nil); err != nil {
			t.Fatal(err)
		}
		want := []string{
			"dsh-code 1\n",
			`{"call":{"id":1,"name":"a","args":{}}}` + "\n" + `{"call":{"id":2,"name":"b","args":{"x":1}}}` + "\n" + `{"outcome":{"result":1}}` + "\n",
		}
		if strings.Join(w.chunks, "|") != strings.Join(want, "|") {
			t.Errorf("writes %q\nwant   %q", w.chunks, want)
		}
	})
	// talk serves code over pipes and plays the bridge: each step expects
	// a line (yields between are skipped unless expected) and may reply.
	talk := func(t *testing.T, code string, steps []struct{ want, reply string }) {
		t.Helper()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- Serve(inR, outW, nil); outW.Close() }()
		defer inW.Close()
		lines := bufio.NewScanner(outR)
		if !lines.Scan() || lines.Text() != coderun.ProtocolLine {
			t.Fatalf("first line %q", lines.Text())
		}
		io.WriteString(inW, runLine(code))
		for _, step := range steps {
			var l string
			for lines.Scan() {
				if l = lines.Text(); l != `{"yield":true}` || step.want == l {
					break
				}
			}
			if l != step.want {
				t.Fatalf("got %s\nwant %s", l, step.want)
			}
			if step.reply != "" {
				io.WriteString(inW, step.reply+"\n")
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	t.Run("calls are settled with values and rejections", func(t *testing.T) {
		talk(t, "const v = await tools.a({});\nlet e = '';\ntry { await tools.b({}); } catch (x) { e = x.name + ': ' + x.message; }\nconsole.log(v.n, e);\nreturn v;", []struct{ want, reply string }{
			{`{"call":{"id":1,"name":"a","args":{}}}`, `{"settle":{"id":1,"ok":true,"value":{"n":7}}}`},
			{`{"call":{"id":2,"name":"b","args":{}}}`, `{"settle":{"id":2,"ok":false,"error":"denied"}}`},
			{`{"outcome":{"logs":["7 ToolCallError: denied"],"result":{"n":7}}}`, ""},
		})
	})
	t.Run("an abort ends a program awaiting a call", func(t *testing.T) {
		talk(t, "console.log('waiting');\nawait tools.a({});", []struct{ want, reply string }{
			{`{"call":{"id":1,"name":"a","args":{}}}`, ""},
			{`{"yield":true}`, `{"abort":"the turn was cancelled"}`},
			{`{"outcome":{"logs":["waiting"],"err":{"kind":"abort","message":"the turn was cancelled"}}}`, ""},
		})
	})
	t.Run("no run at all is no error", func(t *testing.T) {
		w := &writes{}
		if err := Serve(strings.NewReader(""), w, nil); err != nil || strings.Join(w.chunks, "") != "dsh-code 1\n" {
			t.Errorf("%v %q", err, w.chunks)
		}
	})
	t.Run("a first message that is not a run", func(t *testing.T) {
		if err := Serve(strings.NewReader(`{"abort":"x"}`+"\n"), &writes{}, nil); err == nil {
			t.Error("served")
		}
	})
}

func TestVMData(t *testing.T) {
	for name, tc := range map[string]struct {
		status string
		want   uint64
		ok     bool
	}{
		"a status file": {"Name:\tdsh-code\nVmPeak:\t  99 kB\nVmData:\t   1234 kB\nVmStk:\t 132 kB\n", 1234 << 10, true},
		"no VmData":     {"Name:\tdsh-code\n", 0, false},
		"not a number":  {"VmData:\t x kB\n", 0, false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := vmData(strings.NewReader(tc.status))
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("vmData = %d, %v; want %d (ok %v)", got, err, tc.want, tc.ok)
			}
		})
	}
}
