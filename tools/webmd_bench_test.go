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

// BenchmarkMarkdown converts real pages the way web_fetch does, in a
// dsh-markdown process of its own, against the same conversion in this
// process (as the bridge did before the converter moved out),
// alternating, medians of the wall time: the Go specification
// ($GOROOT/doc/go_spec.html, 293 KB of HTML) and its first 15 KB (cut
// inside the document, as a small page). The difference is what each
// HTML page costs for keeping the parser out of every bridge start.
func BenchmarkMarkdown(b *testing.B) {
	spec, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "doc", "go_spec.html"))
	if err != nil {
		b.Fatal(err)
	}
	bin := os.Getenv("DSH_MARKDOWN")
	ctx := context.Background()
	for _, page := range []struct {
		name string
		html string
	}{{"15KB", string(spec[:15_000])}, {"293KB", string(spec)}} {
		b.Run(page.name, func(b *testing.B) {
			var helper, inproc []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, _, err := runMarkdown(ctx, bin, page.html, FetchMaxText+4); err != nil {
					b.Fatal(err)
				}
				helper = append(helper, time.Since(t0))
				t0 = time.Now()
				if _, err := htmltomarkdown.ConvertString(page.html); err != nil {
					b.Fatal(err)
				}
				inproc = append(inproc, time.Since(t0))
			}
			b.ReportMetric(float64(median(helper).Microseconds())/1000, "helper-ms/page")
			b.ReportMetric(float64(median(inproc).Microseconds())/1000, "in-process-ms/page")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
