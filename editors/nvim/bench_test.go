// Package nvim_test measures the Neovim plugin (editors/nvim) inside a
// headless Neovim: bench/bench.lua does the work, this file builds the
// binary, runs it, and reports medians with the ratio to each peer.
//
//	go test ./editors/nvim -run '^$' -bench . -benchtime 10x
package nvim_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/highlight"
	"github.com/dsh-bridge/dsh-bridge/highlight/chromatok"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/views"
)

// build compiles dsh-bridge, and its helpers next to it, into dir.
func build(b *testing.B, dir string) string {
	b.Helper()
	bin := filepath.Join(dir, "dsh-bridge")
	cmd := exec.Command("go", "build", "-o", dir+"/", "github.com/dsh-bridge/dsh-bridge/cmd/dsh-bridge", "github.com/dsh-bridge/dsh-bridge/cmd/dsh-highlight", "github.com/dsh-bridge/dsh-bridge/cmd/dsh-code", "github.com/dsh-bridge/dsh-bridge/cmd/dsh-markdown")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as shipped
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run plays one benchmark of bench.lua n times and decodes its results.
func run(b *testing.B, bin, which string, n int, into any, extraEnv ...string) {
	b.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		b.Skip("nvim is not installed (make deps-nvim)")
	}
	out := filepath.Join(b.TempDir(), "out.json")
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "bench", "bench.lua")
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "DSH_BRIDGE_BIN="+bin, "DSH_BENCH="+which, "DSH_BENCH_OUT="+out,
		"DSH_BENCH_N="+strconv.Itoa(n), "DSH_BENCH_SOURCE="+filepath.Join(runtime.GOROOT(), "src", "net", "http", "h2_bundle.go"))
	cmd.Env = append(cmd.Env, extraEnv...)
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("nvim: %v\n%s", err, o)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatalf("no results: %v", err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		b.Fatalf("results: %v\n%s", err, data)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func BenchmarkNvim(b *testing.B) {
	bin := build(b, b.TempDir())
	b.Run("ready", func(b *testing.B) {
		var r struct{ Ours, Peer []float64 }
		run(b, bin, "ready", b.N, &r)
		b.ReportMetric(median(r.Ours), "ms/ready")
		b.ReportMetric(median(r.Peer), "peer-ms/ready")
		b.ReportMetric(median(r.Ours)/median(r.Peer), "ratio")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("diff-5000", func(b *testing.B) {
		var r struct {
			Ours, Peer []float64
			Lines      int
		}
		run(b, bin, "diff", b.N, &r)
		b.ReportMetric(median(r.Ours), "ms/render")
		b.ReportMetric(median(r.Peer), "peer-ms/render")
		b.ReportMetric(median(r.Ours)/median(r.Peer), "ratio")
		b.ReportMetric(float64(r.Lines), "lines")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("tokens-2000", func(b *testing.B) {
		env := tokenUpdates(b)
		var r struct {
			Ours, Peer []float64
			Spans      int `json:"spans"`
			Bytes      int `json:"bytes"`
			PeerBytes  int `json:"peer_bytes"`
		}
		run(b, bin, "tokens", b.N, &r, env...)
		b.ReportMetric(median(r.Ours), "ms/update")
		b.ReportMetric(median(r.Peer), "peer-ms/update")
		b.ReportMetric(median(r.Ours)/median(r.Peer), "ratio")
		b.ReportMetric(float64(r.Spans), "spans")
		b.ReportMetric(float64(r.Bytes), "bytes")
		b.ReportMetric(float64(r.PeerBytes), "peer-bytes")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("chunks-10000", func(b *testing.B) {
		type one struct {
			ElapsedMs float64 `json:"elapsed_ms"`
			Frames    []float64
			Chunks    int
		}
		var r struct{ Ours, Peer []one }
		run(b, bin, "chunks", b.N, &r)
		rate := func(rs []one) (perSec, maxFrame, frames []float64) {
			for _, x := range rs {
				perSec = append(perSec, float64(x.Chunks)/(x.ElapsedMs/1000))
				maxFrame = append(maxFrame, slices.Max(x.Frames))
				frames = append(frames, float64(len(x.Frames)))
			}
			return
		}
		ours, oursMax, oursFrames := rate(r.Ours)
		peer, _, _ := rate(r.Peer)
		b.ReportMetric(median(ours), "chunks/s")
		b.ReportMetric(median(oursMax), "max-frame-ms")
		b.ReportMetric(median(oursFrames), "flushes")
		b.ReportMetric(median(peer), "peer-chunks/s")
		b.ReportMetric(median(ours)/median(peer), "ratio")
		b.ReportMetric(0, "ns/op")
	})
}

// tokenUpdates writes the tokens update of a read of the first 2,000 lines
// of net/http's server.go in both forms, each as the session/update line
// the bridge writes (views.ReadTokens), and returns the environment that
// names them for bench.lua.
func tokenUpdates(b *testing.B) []string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")[:2000]
	read := &card.Read{Path: "/w/server.go", Offset: 1, TotalLines: 2000, Lang: "go"}
	for i, l := range lines {
		read.Lines = append(read.Lines, card.ReadFileLine{Number: i + 1, Text: l})
	}
	var env []string
	for _, packed := range []bool{true, false} {
		u, ok := views.ReadTokens(context.Background(), views.Env{Tokenizer: chromaTokenizer{}, PackedTokens: packed}, "r", read)
		if !ok {
			b.Fatal("no tokens for Go")
		}
		line, err := jsonv.AppendGo(nil, map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s", "update": u}})
		if err != nil {
			b.Fatal(err)
		}
		key, path := "OBJECTS", filepath.Join(b.TempDir(), "tokens.json")
		if packed {
			key = "PACKED"
		}
		if err := os.WriteFile(path, line, 0o644); err != nil {
			b.Fatal(err)
		}
		env = append(env, "DSH_BENCH_TOKENS_"+key+"="+path)
	}
	return append(env, "DSH_BENCH_TOKENS_SOURCE="+filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
}

// chromaTokenizer tokenizes in this process, as the dsh-highlight helper
// does.
type chromaTokenizer struct{}

func (chromaTokenizer) Tokens(_ context.Context, path, lang string, lines []string) (highlight.TokenLines, error) {
	ts, _, err := chromatok.Tokenize(path, lang, lines)
	return ts, err
}
