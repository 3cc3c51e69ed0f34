package bridge_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// selfKiB is one process's field of /proc/PID/status (VmRSS), in KiB.
func selfKiB(pid int, field string) int {
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, field+":") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return kb
		}
	}
	return 0
}

// BenchmarkLSPBridgeRSS is what the bridge's own RSS (VmRSS of its
// process alone: the servers are processes of their own) gains from a
// new session's start through a prompt that reads a Go, a Python and a
// TypeScript file (their servers start) and one that edits each (their
// diagnostics come back), with the three servers attached (lsp=on) and
// with the servers off in the user's settings (lsp=off, the peer: the
// same prompts). Reported: rss-growth-KiB, and the server processes.
func BenchmarkLSPBridgeRSS(b *testing.B) {
	for _, tc := range []struct{ name, user string }{{"lsp=off", `{"lsp": false}`}, {"lsp=on", `{}`}} {
		b.Run(tc.name, func(b *testing.B) {
			files := map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n",
				"demo.go": "package demo\n\nfunc One() int { return 1 }\n", "demo.py": "x: int = 1\n",
				"tsconfig.json": "{}\n", "demo.ts": "export const x: number = 1\n"}
			var growth []float64
			for b.Loop() {
				h := lspSetupB(b, files, tc.user,
					fakeTurn{calls: []fakeCall{{"r1", "read", args("file_path", "demo.go")}, {"r2", "read", args("file_path", "demo.py")}, {"r3", "read", args("file_path", "demo.ts")}}},
					fakeTurn{text: "warm"},
					fakeTurn{calls: []fakeCall{{"e1", "edit", args("file_path", "demo.go", "old_string", "return 1", "new_string", "return 2")},
						{"e2", "edit", args("file_path", "demo.py", "old_string", "= 1", "new_string", "= 2")},
						{"e3", "edit", args("file_path", "demo.ts", "old_string", "= 1", "new_string", "= 2")}}},
					fakeTurn{text: "done"})
				time.Sleep(time.Second) // the session's start settles
				before := selfKiB(h.cmd.Process.Pid, "VmRSS")
				h.prompt(h.session, "warm")
				h.prompt(h.session, "edit")
				time.Sleep(time.Second)
				growth = append(growth, float64(selfKiB(h.cmd.Process.Pid, "VmRSS")-before))
				n := len(inDir(h.dir, "gopls")) + len(inDir(h.dir, "node"))
				b.ReportMetric(float64(n), "server-processes")
				h.close()
			}
			sum := 0.0
			for _, g := range growth {
				sum += g
			}
			b.ReportMetric(sum/float64(len(growth)), "rss-growth-KiB")
		})
	}
}
