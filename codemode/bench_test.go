package codemode

import (
	"github.com/dsh-bridge/dsh-bridge/codemode/jsvm"

	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/pipeline"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// benchProgram is a 50-line program making five read calls, as a model
// writes them: types, a helper, a loop, a summary.
func benchProgram() string {
	var b strings.Builder
	b.WriteString("interface Summary { path: string; size: number; words: number }\n")
	b.WriteString("const paths: string[] = ['a.go', 'b.go', 'c.go', 'd.go', 'e.go'];\n")
	b.WriteString("function words(text: string): number {\n  return text.split(/\\s+/).filter((w) => w.length > 0).length;\n}\n")
	b.WriteString("const out: Summary[] = [];\n")
	b.WriteString("for (const p of paths) {\n  const r = await tools.read({path: p});\n  out.push({path: p, size: r.text.length, words: words(r.text)});\n}\n")
	for i := range 38 {
		fmt.Fprintf(&b, "const note%d = out.length > %d ? out[%d].path : 'none'; // bookkeeping line %d\n", i, i%5, i%5, i)
	}
	b.WriteString("console.log('files', out.length);\nreturn out;\n")
	return b.String()
}

// BenchmarkRunCode compares a 50-line program making five reads through
// run_code (a spare runner process, the transform, a fresh VM, the sub-call
// lane, the whole pipeline for each call) with the same five calls made
// natively through the pipeline, in the same run. Set DSH_CODE_RUNNER to a
// built dsh-code to measure the real runner (else it is this test binary).
func BenchmarkRunCode(b *testing.B) {
	e := newCM(b, registry.Code, Config{})
	e.readDelay = 0
	code := benchProgram()
	if n := strings.Count(code, "\n"); n != 50 {
		b.Fatalf("the program has %d lines", n)
	}
	args, _ := jsonv.FromGo(map[string]any{"code": code, "description": "Summarise five files"})
	b.Run("run_code", func(b *testing.B) {
		for b.Loop() {
			// Runs come a model turn apart: the spare runner is ready.
			b.StopTimer()
			spare.wg.Wait()
			b.StartTimer()
			if r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "o", Name: "run_code", Args: args, Scope: e.scope}); r.IsError {
				b.Fatal(r.Error.Message)
			}
		}
	})
	b.Run("native-calls", func(b *testing.B) {
		native := e.reg.NewScope("native", nil)
		for b.Loop() {
			for _, p := range []string{"a.go", "b.go", "c.go", "d.go", "e.go"} {
				if r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "n", Name: "read", Arguments: []byte(`{"path":"` + p + `"}`), Scope: native}); r.IsError {
					b.Fatal(r.Error.Message)
				}
			}
		}
	})
	b.Run("transform-only", func(b *testing.B) {
		for b.Loop() {
			if _, err := jsvm.Transform(code); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSubCall measures one sub-call's overhead: a program awaiting a
// no-op tool 100 times in sequence, per call, against the same tool called
// directly through the pipeline.
func BenchmarkSubCall(b *testing.B) {
	e := newCM(b, registry.Code, Config{})
	e.readDelay = 0
	noop := &registry.Tool{
		Name: "noop", Parameters: jsonv.MustParse(`{"type":"object"}`),
		Output: registry.Output{Schema: jsonv.MustParse(`{}`), Render: func(_, _ jsonv.Value) ([]card.Content, error) { return nil, nil }},
		Execute: func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			return jsonv.NullValue(), nil
		},
	}
	if _, err := e.reg.Register(noop, nil); err != nil {
		b.Fatal(err)
	}
	args, _ := jsonv.FromGo(map[string]any{"code": "for (let i = 0; i < 100; i++) { await tools.noop({}) }", "description": "Call noop 100 times"})
	b.Run("sub-call", func(b *testing.B) {
		for b.Loop() {
			if r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "o", Name: "run_code", Args: args, Scope: e.scope}); r.IsError {
				b.Fatal(r.Error.Message)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100), "ns/sub-call")
	})
	b.Run("direct", func(b *testing.B) {
		native := e.reg.NewScope("native", nil)
		for b.Loop() {
			if r := e.pipe.Execute(context.Background(), pipeline.Call{CallID: "n", Name: "noop", Scope: native}); r.IsError {
				b.Fatal(r.Error.Message)
			}
		}
	})
}
