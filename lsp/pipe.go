package lsp

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// pipe is the server's stdout and stdin as one stream.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipe) Close() error {
	err := p.w.Close()
	if e := p.ReadCloser.Close(); err == nil {
		err = e
	}
	return err
}

// errStalled marks a write the server did not read within writeBound.
var errStalled = errors.New("did not read its input")

// boundedWriter is a server's input, through which every message to it
// goes (initialize, requests, notifications and the answers to its own
// requests, which the connection's reader writes): a write that has not
// ended within bound (the server stopped reading, its pipe is full)
// calls stop, which ends the server and so the write, with errStalled.
// No write, and so no holder of the connection's send lock, waits
// longer than bound.
type boundedWriter struct {
	w     io.WriteCloser
	bound time.Duration
	stop  func() // ends the server: the blocked write returns

	mu      sync.Mutex
	stalled bool
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	t := time.AfterFunc(b.bound, func() { // ends with stop
		b.mu.Lock()
		b.stalled = true
		b.mu.Unlock()
		b.stop()
	})
	n, err := b.w.Write(p)
	t.Stop()
	if err != nil && b.hasStalled() {
		err = fmt.Errorf("%w within %v; it was stopped", errStalled, b.bound)
	}
	return n, err
}

func (b *boundedWriter) Close() error { return b.w.Close() }

func (b *boundedWriter) hasStalled() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stalled
}

// stderrLog forwards a server's stderr to the debug log, line by line.
type stderrLog struct{ s *server }

func (l stderrLog) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			l.s.m.opts.Log.Debug("language server stderr", "server", l.s.cfg.Language, "line", line)
		}
	}
	return len(p), nil
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
