package tools

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
)

// BenchmarkMarkdown converts a real page (the Go specification, 293 KB of
// HTML) the way web_fetch does, in a dsh-markdown process of its own,
// against the same conversion in this process (as the bridge did before
// the converter moved out), alternating, medians of the wall time. The
// difference is what each HTML page costs for keeping the parser out of
// every bridge start.
func BenchmarkMarkdown(b *testing.B) {
	page, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "doc", "go_spec.html"))
	if err != nil {
		b.Fatal(err)
	}
	bin := os.Getenv("DSH_MARKDOWN")
	ctx := context.Background()
	var helper, inproc []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, _, err := runMarkdown(ctx, bin, string(page), FetchMaxText+4); err != nil {
			b.Fatal(err)
		}
		helper = append(helper, time.Since(t0))
		t0 = time.Now()
		if _, err := htmltomarkdown.ConvertString(string(page)); err != nil {
			b.Fatal(err)
		}
		inproc = append(inproc, time.Since(t0))
	}
	b.ReportMetric(float64(median(helper).Microseconds())/1000, "helper-ms/page")
	b.ReportMetric(float64(median(inproc).Microseconds())/1000, "in-process-ms/page")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
