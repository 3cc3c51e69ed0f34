//go:build linux

package bridge_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCodeModeTraffic plays one 10-step task both ways through the
// binary: count the functions in ten real Go files (200 lines of
// net/http/server.go each). Native: ten read calls, one per model turn;
// native-batched, the strongest native peer: the ten reads in one turn.
// Code: one run_code program that reads the ten files and returns the
// counts. It reports the bytes of model-visible tool traffic (the calls'
// arguments plus the results, as the final request carries them) and the
// number of model requests.
func BenchmarkCodeModeTraffic(b *testing.B) {
	const files = 10
	program := `const counts: Record<string, number> = {};
for (let i = 0; i < 10; i++) {
  const r = await tools.read({file_path: "f" + i + ".go"});
  counts["f" + i + ".go"] = r.lines.filter((l: {text: string}) => l.text.startsWith("func ")).length;
}
return counts;`
	for _, mode := range []string{"native", "native-batched", "code"} {
		b.Run(mode, func(b *testing.B) {
			var traffic, requests int
			for b.Loop() {
				dir, _ := filepath.EvalSymlinks(b.TempDir())
				for i := range files {
					realGoFileAt(b, dir, fmt.Sprintf("f%d.go", i), 200*i, 200)
				}
				var turns []fakeTurn
				toolsMode := mode
				switch mode {
				case "native":
					for i := range files {
						turns = append(turns, fakeTurn{calls: []fakeCall{{fmt.Sprintf("r%d", i), "read", args("file_path", fmt.Sprintf("f%d.go", i))}}})
					}
				case "native-batched":
					toolsMode = "native"
					var calls []fakeCall
					for i := range files {
						calls = append(calls, fakeCall{fmt.Sprintf("r%d", i), "read", args("file_path", fmt.Sprintf("f%d.go", i))})
					}
					turns = append(turns, fakeTurn{calls: calls})
				default:
					turns = append(turns, fakeTurn{calls: []fakeCall{{"rc", "run_code", args("code", program, "description", "Count the functions in ten files")}}})
				}
				turns = append(turns, fakeTurn{text: "Counted."})
				m := newFakeModel(b, turns...)
				e := startEditor(b, "DSH_BASE_URL="+m.srv.URL, "DSH_LOG_LEVEL=error", "DSH_TOOLS_MODE="+toolsMode)
				e.noValidate = true
				e.initialize(nil)
				s := e.newSession(dir)
				if stop := e.prompt(s, "How many functions does each file have?"); stop != "end_turn" {
					b.Fatalf("stop %q", stop)
				}
				reqs := m.recorded()
				last := reqs[len(reqs)-1]
				traffic = 0
				for _, msg := range last.Messages {
					if msg.Role == "tool" {
						traffic += len(fmt.Sprint(msg.Content))
					}
					for _, tc := range msg.ToolCalls {
						traffic += len(tc.Function.Arguments)
					}
				}
				requests = len(reqs)
				if mode == "code" && !strings.Contains(fmt.Sprint(last.Messages[len(last.Messages)-1].Content), `"f9.go"`) {
					b.Fatalf("the program's result: %v", last.Messages[len(last.Messages)-1].Content)
				}
				e.close()
			}
			b.ReportMetric(float64(traffic), "tool-bytes")
			b.ReportMetric(float64(requests), "model-requests")
		})
	}
}
