package lsp

import (
	"io"
	"strings"
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
