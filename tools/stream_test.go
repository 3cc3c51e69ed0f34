package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hugeHost serves one generated file of size bytes through OpenText only:
// a tool that reads it whole through ReadTextFile fails.
type hugeHost struct {
	LocalHost
	size int64
}

type lineGen struct {
	n, left int64
	pending []byte
	buf     [64]byte // reused: the generator must not allocate per line
}

func (g *lineGen) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if len(g.pending) == 0 {
			if g.left <= 0 {
				break
			}
			line := append(g.buf[:0], "line "...)
			num := strconv.AppendInt(g.buf[40:40], g.n, 10)
			for range 9 - len(num) {
				line = append(line, '0')
			}
			line = append(line, num...)
			line = append(line, " of a file far too large to hold in memory\n"...)
			g.pending = line[:min(int64(len(line)), g.left)]
			g.left -= int64(len(g.pending))
			g.n++
		}
		k := copy(p[w:], g.pending)
		g.pending = g.pending[k:]
		w += k
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w, nil
}

func (h hugeHost) ReadTextFile(context.Context, string) (string, error) {
	return "", errors.New("read whole")
}

func (h hugeHost) OpenText(context.Context, string) (io.ReadCloser, error) {
	return io.NopCloser(&lineGen{left: h.size}), nil
}

// TestRead_StreamsHugeFiles: reading 10 lines of a 400 MB file allocates a
// bounded buffer, not the file (it used to cost 800 MB).
func TestRead_StreamsHugeFiles(t *testing.T) {
	const size = 400 << 20
	e := newEnv(t, hugeHost{size: size})
	e.write("huge.log", "placeholder: the host serves the content\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := wantOK(t, e.call("read", `{"file_path":"huge.log","offset":5000000,"limit":10}`))
	runtime.ReadMemStats(&after)
	if !strings.Contains(got, "line 004999999 of a file") || !strings.Contains(got, "line 005000008") {
		t.Fatalf("wrong window: %.300s", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading 10 lines allocated %d MiB", alloc>>20)
	}
}

// rssKiB reads this process's resident set size.
func rssKiB() int64 {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// peakAbove runs fn while sampling RSS every millisecond and returns the
// peak above the RSS before it started, in MiB.
func peakAbove(fn func()) float64 {
	debug.FreeOSMemory()
	idle := rssKiB()
	var peak atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if r := rssKiB(); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return float64(peak.Load()-idle) / 1024
}

// BenchmarkReadHugeFile reads 10 lines from the middle of a real 400 MB
// file on disk with the read tool, and reports the peak RSS above idle;
// "whole" is what reading the file whole (as read did before) costs.
func BenchmarkReadHugeFile(b *testing.B) {
	e := newEnv(b, LocalHost{})
	path := filepath.Join(e.dir, "huge.log")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, &lineGen{left: 400 << 20}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.Run("read-tool", func(b *testing.B) {
		var peak float64
		for b.Loop() {
			peak = max(peak, peakAbove(func() {
				r := e.call("read", `{"file_path":"huge.log","offset":3800000,"limit":10}`)
				if r.IsError {
					b.Fatal(r.Content)
				}
			}))
		}
		b.ReportMetric(peak, "peak-MiB-above-idle")
	})
	b.Run("whole", func(b *testing.B) {
		var peak float64
		for b.Loop() {
			peak = max(peak, peakAbove(func() {
				data, _ := os.ReadFile(path)
				s := string(data)
				runtime.KeepAlive(s)
			}))
		}
		b.ReportMetric(peak, "peak-MiB-above-idle")
	})
}
