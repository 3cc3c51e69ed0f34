package highlight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkGoTokens is a Go read's time to tokens through a Client, as
// the bridge asks for them (PackedTokens): "first" is a session's first
// read, whose client has no helper running yet (its start included);
// "later" is every read after it, each of a window of net/http's
// server.go made unique (so the cache cannot answer), of 100 lines (a
// typical read) and of 2,000 (the read tool's default limit).
func BenchmarkGoTokens(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	ctx := context.Background()
	window := func(i, n int) []string {
		from := (i * 97) % (len(lines) - n)
		return append([]string{fmt.Sprintf("// window %d", i)}, lines[from:from+n-1]...)
	}
	check := func(b *testing.B, p Packed, err error) {
		if err != nil || len(p) == 0 {
			b.Fatalf("tokens: %.80s %v", p, err)
		}
	}
	b.Run("first", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			c := New(Options{Path: helperBin, Log: quiet})
			p, err := c.PackedTokens(ctx, "/w/server.go", "", window(i, 100))
			b.StopTimer()
			check(b, p, err)
			c.Close()
			b.StartTimer()
		}
	})
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("later-%d", n), func(b *testing.B) {
			c := New(Options{Path: helperBin, Log: quiet})
			defer c.Close()
			p, err := c.PackedTokens(ctx, "/w/server.go", "", window(0, n))
			check(b, p, err)
			i := 0
			for b.Loop() {
				i++
				p, err := c.PackedTokens(ctx, "/w/server.go", "", window(i, n))
				check(b, p, err)
			}
		})
	}
}
