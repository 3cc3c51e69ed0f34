package model

import (
	"context"
	"io"
	"time"
)

// The limits of a finished answer's drain (release): what the server may
// still send after [DONE], and how long it may take (Chat.drainWait,
// which tests shorten); and how long the next request waits for it
// (Chat.drainGrace, which tests lengthen).
const (
	drainMaxBytes = 64 << 10
	drainWait     = time.Second
	// drainGrace is how long a request waits for the last drain
	// (awaitDrain): a server ends its response right after [DONE], so
	// its end is on its way when the next request goes, or not coming.
	drainGrace = 10 * time.Millisecond
)

// follow returns a request's own context: ended by ctx until stop is
// called (stop reports whether ctx had not ended by then), and by cancel
// in any case, which its owner calls exactly once. Complete and Models
// stop following once the body's content is read, and release ends it.
func follow(ctx context.Context) (rctx context.Context, cancel context.CancelFunc, stop func() bool) {
	rctx, cancel = context.WithCancel(context.WithoutCancel(ctx))
	return rctx, cancel, context.AfterFunc(ctx, cancel)
}

// release hands a body whose content has been read (an answer through its
// [DONE], the model list once decoded) to a goroutine that reads it to its
// end, closes it and calls cancel (the request's); it returns at once.
//
// The server may still owe the response's end (HTTP/1.1's last, empty
// chunk; HTTP/2's end of stream), often in a write of its own. A body
// closed before that end is a connection net/http cannot reuse: the next
// request dials again, over TLS a new handshake, with the network's round
// trips before its first byte. Draining it where the turn waits would
// delay every turn by the server's gap; here it is drained while the
// turn's tools run, and the next request waits for it a moment at most
// (awaitDrain).
//
// The goroutine ends when the body does, after drainMaxBytes, or after
// c.drainWait (the body is then closed, and its connection not reused).
// Chat.Wait waits for it.
func (c *Chat) release(body io.ReadCloser, cancel context.CancelFunc) {
	done := make(chan struct{})
	c.lastDrain.Store(&done)
	c.drains.Add(1)
	go func() {
		defer c.drains.Done()
		t := time.AfterFunc(c.drainWait, func() { body.Close() })
		io.Copy(io.Discard, io.LimitReader(body, drainMaxBytes))
		t.Stop()
		body.Close()
		cancel()
		c.lastDrain.CompareAndSwap(&done, nil)
		close(done)
	}()
}

// awaitDrain waits, c.drainGrace at most, for the last answer's drain to
// end, so that its connection is back in the pool when the next request
// asks for one: a tool that ends within a millisecond of [DONE] would
// otherwise have the next request dial (and shake hands) beside it.
func (c *Chat) awaitDrain(ctx context.Context) {
	p := c.lastDrain.Load()
	if p == nil {
		return
	}
	t := time.NewTimer(c.drainGrace)
	defer t.Stop()
	select {
	case <-*p:
	case <-t.C:
	case <-ctx.Done():
	}
}

// Wait returns once every answer's body has been drained and closed (a
// client's owner calls it before it goes, tests before they count
// goroutines).
func (c *Chat) Wait() { c.drains.Wait() }
