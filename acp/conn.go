package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Method serves one method of the editor's: made by Handle, Inline,
// HandleOptional or Notification.
type Method struct {
	inline bool
	serve  func(ctx context.Context, method string, params *json.RawMessage) (any, error)
	notify func(ctx context.Context, params *json.RawMessage) error
}

// Handle serves a request on a goroutine of its own: f receives its
// params decoded (absent params are invalid) and returns its result, or
// an error that the connection converts to a wire code (CodedError, a
// wrapped *Error, else -32603).
func Handle[P, R any](f func(context.Context, P) (R, error)) Method {
	return Method{serve: adapt(f, true)}
}

// HandleOptional is Handle for a method whose params may be absent (f
// then receives P's zero value).
func HandleOptional[P, R any](f func(context.Context, P) (R, error)) Method {
	return Method{serve: adapt(f, false)}
}

// Inline is Handle on the read loop: f must return at once and never
// call the editor.
func Inline[P, R any](f func(context.Context, P) (R, error)) Method {
	return Method{inline: true, serve: adapt(f, true)}
}

// Notification serves a notification on the read loop, in arrival order:
// f must return at once and never call the editor. Params that do not
// decode into P are ignored with the notification.
func Notification[P any](f func(context.Context, P)) Method {
	return Method{inline: true, notify: func(ctx context.Context, raw *json.RawMessage) error {
		var p P
		if err := decodeParams("", raw, &p, true); err != nil {
			return err
		}
		f(ctx, p)
		return nil
	}}
}

func adapt[P, R any](f func(context.Context, P) (R, error), required bool) func(context.Context, string, *json.RawMessage) (any, error) {
	return func(ctx context.Context, method string, raw *json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(method, raw, &p, required); err != nil {
			return nil, err
		}
		return f(ctx, p)
	}
}

func decodeParams(method string, raw *json.RawMessage, v any, required bool) error {
	if raw == nil {
		if required {
			return InvalidParams("%s needs params", method)
		}
		return nil
	}
	if err := json.Unmarshal(*raw, v); err != nil {
		return InvalidParams("%s: %v", method, err)
	}
	return nil
}

// AfterReply has f run once the answer to the request ctx serves has been
// queued, before any message written after it, and only when that answer
// is the handler's result. Outside a request, f runs at once. Call it
// from the handler's goroutine.
func AfterReply(ctx context.Context, f func()) {
	a, ok := ctx.Value(afterKey{}).(*after)
	if !ok {
		f()
		return
	}
	a.fs = append(a.fs, f)
}

type afterKey struct{}

type after struct{ fs []func() }

// Options configures a Conn.
type Options struct {
	Log *slog.Logger
	// Arrive, when set, is called on the read loop for every request the
	// editor sends, in arrival order, before its handler starts. It gets
	// the request's context and returns the one the handler receives
	// (ctx itself, or one derived from it), and a function (nil for
	// none) that runs once the request has been answered.
	Arrive func(ctx context.Context, method string, params *json.RawMessage) (context.Context, func())
	// Stop, when set, is called when the editor's input ends, and when
	// Serve's context is done, before the connection waits for the
	// requests in flight: it ends the work they wait on. It may be called
	// more than once.
	Stop func()
}

// Conn is one ACP connection over a newline-delimited stream: it reads
// the editor's messages and serves them through its methods, and writes
// everything the agent says (answers, notifications, its own calls to the
// editor), each message in one pass. It is safe for concurrent use.
type Conn struct {
	methods map[string]Method
	opt     Options
	log     *slog.Logger
	stream  *lineStream
	// done is closed when the connection has ended: notifications are
	// then dropped.
	done chan struct{}

	mu       sync.Mutex
	inflight map[string]context.CancelFunc // inbound request id → cancel
	wg       sync.WaitGroup                // request goroutines
}

// NewConn returns a connection that reads r and writes w; Serve runs it.
// methods is its method table ($/cancel_request is the connection's
// own).
func NewConn(r io.Reader, w io.Writer, methods map[string]Method, opt Options) *Conn {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	c := &Conn{methods: methods, opt: opt, log: opt.Log, inflight: map[string]context.CancelFunc{}, done: make(chan struct{})}
	c.stream = newLineStream(r, w, nil, opt.Log)
	c.stream.onEOF = func() {
		// The editor is gone: stop the work (its calls can never be
		// answered), then let in-flight requests write their answers.
		c.stop()
		c.wg.Wait()
	}
	return c
}

func (c *Conn) stop() {
	if c.opt.Stop != nil {
		c.opt.Stop()
	}
}

// Serve reads and serves until the input ends or ctx is done; then it
// cancels the requests in flight, calls Stop, and waits for their
// handlers to return. What they wrote may still be queued: Close writes
// it.
func (c *Conn) Serve(ctx context.Context) {
	rpc := jsonrpc2.NewConn(ctx, c.stream, c)
	select {
	case <-rpc.DisconnectNotify():
	case <-ctx.Done():
		rpc.Close()
	}
	close(c.done)
	c.mu.Lock()
	for _, cancel := range c.inflight {
		cancel()
	}
	c.mu.Unlock()
	c.stop()
	c.wg.Wait()
}

// Close writes what is queued, waiting up to wait, and takes no more
// messages; false when the editor did not take it in time (it stopped
// reading). Call it once, after Serve has returned.
func (c *Conn) Close(wait time.Duration) bool { return c.stream.drain(wait) }

// Flush waits until the messages queued so far are written.
func (c *Conn) Flush() error { return c.stream.flush() }

// Handle implements jsonrpc2.Handler. It runs on the read loop, so it
// never blocks and never calls the editor: notifications and inline
// methods are served there, in arrival order; every other request on a
// goroutine of its own.
func (c *Conn) Handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	m, known := c.methods[req.Method]
	if req.Notif {
		switch {
		case req.Method == "$/cancel_request":
			c.cancelRequest(req.Params)
		case known && m.notify != nil:
			if err := m.notify(ctx, req.Params); err != nil {
				c.log.Debug("ignored a notification", "method", req.Method, "err", err)
			}
		case !strings.HasPrefix(req.Method, "_") && !strings.HasPrefix(req.Method, "$/"):
			c.log.Debug("ignored an unknown notification", "method", req.Method)
		}
		return
	}
	if known && m.inline {
		c.respond(ctx, req, m)
		return
	}
	key := req.ID.String()
	rctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.inflight[key] = cancel
	c.mu.Unlock()
	var answered func()
	if c.opt.Arrive != nil {
		rctx, answered = c.opt.Arrive(rctx, req.Method, req.Params)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			if answered != nil {
				answered()
			}
			c.mu.Lock()
			delete(c.inflight, key)
			c.mu.Unlock()
			cancel()
		}()
		c.respond(rctx, req, m)
	}()
}

// cancelRequest serves $/cancel_request: the request it names, if still
// in flight, has its context cancelled.
func (c *Conn) cancelRequest(raw *json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	var id jsonrpc2.ID
	if decodeParams("", raw, &p, true) != nil || json.Unmarshal(p.RequestID, &id) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.inflight[id.String()]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// respond runs m's handler, converting panics into -32603 and errors into
// wire codes, and answers.
func (c *Conn) respond(ctx context.Context, req *jsonrpc2.Request, m Method) {
	a := &after{}
	ctx = context.WithValue(ctx, afterKey{}, a)
	result, err := func() (result any, err error) {
		defer func() {
			if p := recover(); p != nil {
				c.log.Error("handler panicked", "method", req.Method, "panic", p, "stack", string(debug.Stack()))
				err = &jsonrpc2.Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error in %s", req.Method)}
			}
		}()
		if m.serve == nil {
			return nil, fmt.Errorf("%w: %s", ErrMethodNotFound, req.Method)
		}
		return m.serve(ctx, req.Method, req.Params)
	}()
	if err != nil {
		if e := c.reply(req.ID, nil, toWire(err)); e != nil {
			c.log.Warn("reply failed", "method", req.Method, "err", e)
		}
		return
	}
	if e := c.reply(req.ID, result, nil); e != nil {
		c.log.Warn("reply failed", "method", req.Method, "err", e)
		var enc *encodingError
		if !errors.As(e, &enc) {
			return
		}
		// The editor must not wait forever for an answer that cannot be
		// written: it gets an error instead.
		if e := c.reply(req.ID, nil, toWire(e)); e != nil {
			c.log.Warn("reply failed", "method", req.Method, "err", e)
		}
		return
	}
	for _, f := range a.fs {
		f()
	}
}
