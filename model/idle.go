package model

import (
	"context"
	"io"
	"sync/atomic"
	"time"
)

// The stream's idle limits when ChatConfig.StreamIdle is 0.
//
// DeepSeek's streams have been seen to stop mid-answer without ending (no
// finish_reason, no [DONE], the connection left open: deepseek-ai/
// DeepSeek-V3#1608, a few percent of long reasoning turns in August
// 2026), and the turn then waits until the person gives up. DeepSeek
// keeps a queued request's stream alive with SSE comments and streams its
// reasoning, so a minute and a half without a byte is a stall. Other
// endpoints may think in silence (a model whose reasoning is hidden, a
// local server evaluating a long prompt): five minutes.
const (
	StreamIdleDeepSeek = 90 * time.Second
	StreamIdleOther    = 5 * time.Minute
)

// streamIdle is the idle limit of an answer of modelID; 0: none.
func (c *Chat) streamIdle(modelID string) time.Duration {
	switch {
	case c.idle < 0:
		return 0
	case c.idle > 0:
		return c.idle
	case IsDeepSeek(modelID):
		return StreamIdleDeepSeek
	}
	return StreamIdleOther
}

// watch returns body as read by readStream, with a watchdog that calls
// cancel (the request's) once no byte has come for the answer's idle
// limit, and quiet, which stops the watchdog and reports whether it fired.
// quiet is called exactly once, after the body has been read.
func (c *Chat) watch(body io.Reader, modelID string, cancel context.CancelFunc) (io.Reader, func() bool) {
	d := c.streamIdle(modelID)
	if d <= 0 {
		return body, func() bool { return false }
	}
	var fired atomic.Bool
	t := time.AfterFunc(d, func() {
		fired.Store(true)
		cancel()
	})
	return &idleReader{r: body, t: t, d: d}, func() bool {
		t.Stop()
		return fired.Load()
	}
}

// idleReader re-arms its timer whenever a read brings bytes.
type idleReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (w *idleReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.t.Reset(w.d)
	}
	return n, err
}
