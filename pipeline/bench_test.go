package pipeline

import (
	"context"
	"strconv"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

var benchArgs = []byte(`{"file_path":"/home/user/project/src/main.go"}`)

func benchRegistry(b *testing.B) (*registry.Registry, *registry.Tool) {
	reg := registry.New()
	tool := &registry.Tool{
		Name:       "noop",
		Parameters: jsonv.MustParse(`{"type":"object","properties":{"file_path":{"type":"string"}}}`),
		Output:     registry.Output{Schema: jsonv.MustParse(`{}`), Render: func(_, _ jsonv.Value) ([]card.Content, error) { return nil, nil }},
		Execute: func(context.Context, jsonv.Value, registry.RunContext) (jsonv.Value, error) {
			return jsonv.NullValue(), nil
		},
		IsConcurrencySafe: func(jsonv.Value) bool { return true },
	}
	if _, err := reg.Register(tool, nil); err != nil {
		b.Fatal(err)
	}
	return reg, reg.Get("noop", nil)
}

// BenchmarkPipeline measures the full pipeline for a no-op tool (arguments
// arriving as the model's bytes) against calling the tool's function
// directly with the same bytes parsed, in the same run.
func BenchmarkPipeline(b *testing.B) {
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		_, tool := benchRegistry(b)
		b.ReportAllocs()
		for b.Loop() {
			args, err := jsonv.Parse(benchArgs)
			if err != nil {
				b.Fatal(err)
			}
			v, err := tool.Execute(ctx, args, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tool.Output.Render(args, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, listeners := range []int{0, 10} {
		b.Run("pipeline/listeners="+strconv.Itoa(listeners), func(b *testing.B) {
			reg, _ := benchRegistry(b)
			p := New(reg)
			for range listeners {
				p.OnPreExecute(nil, func(_ context.Context, _ registry.Execution, next func() (PreDecision, error)) (PreDecision, error) {
					return next()
				})
				p.AddGuard(nil, func(registry.Execution) string { return "" })
				p.WrapExecute(nil, func(ctx context.Context, _ registry.Execution, next func(context.Context) registry.Result) (registry.Result, error) {
					return next(ctx), nil
				})
				p.OnPostExecute(nil, func(_ context.Context, _ registry.Execution, _ registry.Result, next func() (PostDecision, error)) (PostDecision, error) {
					return next()
				})
				p.OnResult(nil, func(registry.Execution, registry.Result) {})
			}
			call := Call{CallID: "c", Name: "noop", Arguments: benchArgs}
			b.ReportAllocs()
			for b.Loop() {
				if r := p.Execute(ctx, call); r.IsError {
					b.Fatal(r.Error.Message)
				}
			}
		})
	}
}

// BenchmarkBatch1000 runs 1,000 parallel-safe no-op calls through the
// scheduler with MaxParallel 10; ns/op is per batch.
func BenchmarkBatch1000(b *testing.B) {
	reg, _ := benchRegistry(b)
	p := New(reg)
	calls := make([]Call, 1000)
	for i := range calls {
		calls[i] = Call{CallID: strconv.Itoa(i), Name: "noop", Arguments: benchArgs}
	}
	b.ReportAllocs()
	for b.Loop() {
		rs := p.ExecuteBatch(context.Background(), calls, BatchOptions{MaxParallel: 10})
		if len(rs) != 1000 || rs[999].IsError {
			b.Fatal("bad batch")
		}
	}
}

type benchIn struct {
	FilePath string `json:"file_path"`
	Offset   *int   `json:"offset,omitempty"`
}

type benchLine struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

type benchOut struct {
	Path  string      `json:"path"`
	Lines []benchLine `json:"lines"`
}

// benchTyped is a typed tool shaped like read: struct arguments, a value
// of 100 numbered lines, a text render and a presentation meta.
func benchTyped() (func(benchIn) benchOut, registry.TypedTool[benchIn, benchOut]) {
	lines := make([]benchLine, 100)
	for i := range lines {
		lines[i] = benchLine{i + 1, "\tif err := s.handle(ctx, req); err != nil { return fmt.Errorf(\"serve: %w\", err) }"}
	}
	run := func(in benchIn) benchOut { return benchOut{Path: in.FilePath, Lines: lines} }
	render := func(_ benchIn, o benchOut) ([]card.Content, error) {
		buf := make([]byte, 0, 100*96)
		for _, l := range o.Lines {
			buf = strconv.AppendInt(buf, int64(l.Number), 10)
			buf = append(buf, ": "...)
			buf = append(buf, l.Text...)
			buf = append(buf, '\n')
		}
		return []card.Content{card.Text(string(buf))}, nil
	}
	return run, registry.TypedTool[benchIn, benchOut]{
		Name:              "typed",
		Execute:           func(_ context.Context, in benchIn, _ registry.RunContext) (benchOut, error) { return run(in), nil },
		Render:            render,
		PresentationMeta:  func(_ benchIn, o benchOut, _ jsonv.Value) (jsonv.Value, error) { return jsonv.FromGo(len(o.Lines)) },
		IsConcurrencySafe: func(benchIn) bool { return true },
	}
}

// BenchmarkPipelineTyped is BenchmarkPipeline for a typed tool: the Go
// function and its render called directly against the whole pipeline
// (validation, decoding, the value's conversion, render, meta), in the
// same run.
func BenchmarkPipelineTyped(b *testing.B) {
	ctx := context.Background()
	run, def := benchTyped()
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			in := benchIn{FilePath: "/home/user/project/src/main.go"}
			if _, err := def.Render(in, run(in)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pipeline", func(b *testing.B) {
		reg := registry.New()
		tool, err := registry.Define(def)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := reg.Register(tool, nil); err != nil {
			b.Fatal(err)
		}
		p := New(reg)
		call := Call{CallID: "c", Name: "typed", Arguments: benchArgs}
		b.ReportAllocs()
		for b.Loop() {
			if r := p.Execute(ctx, call); r.IsError {
				b.Fatal(r.Error.Message)
			}
		}
	})
}
