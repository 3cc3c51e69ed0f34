package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// editorCalls are the calls the bridge makes to the editor and waits on
// (fs/*, terminal/*, session/request_permission). The bridge makes them
// itself rather than through jsonrpc2.Conn, which has no call of its own
// in flight: a request is written in one pass, and an answer (a file's
// whole text, for fs/read_text_file) is parsed once, by the read loop,
// instead of being checked and decoded five times by encoding/json.
// Every call gets a number of its own, from 1. It is safe for concurrent
// use; its zero value is ready.
type editorCalls struct {
	mu      sync.Mutex
	last    uint64
	waiting map[uint64]chan callAnswer
	ended   error // once set, every waiting call and every later one fails with it
}

// callAnswer is the editor's answer to a call: its result, or its error.
type callAnswer struct {
	result jsonv.Value // absent when the answer held no result
	err    error
}

// begin numbers a new call; its answer arrives on the channel, which is
// buffered so that the read loop never waits for the caller.
func (c *editorCalls) begin() (uint64, chan callAnswer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != nil {
		return 0, nil, c.ended
	}
	if c.waiting == nil {
		c.waiting = map[uint64]chan callAnswer{}
	}
	c.last++
	ch := make(chan callAnswer, 1)
	c.waiting[c.last] = ch
	return c.last, ch, nil
}

// forget drops a call whose caller stopped waiting; a late answer to it
// is then dropped too.
func (c *editorCalls) forget(id uint64) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}

// answer hands a to the call id; false when no call of that number waits.
// Called by the read loop: it never blocks.
func (c *editorCalls) answer(id uint64, a callAnswer) bool {
	c.mu.Lock()
	ch, ok := c.waiting[id]
	delete(c.waiting, id)
	c.mu.Unlock()
	if ok {
		ch <- a
	}
	return ok
}

// end fails every waiting call with err, and every later call. Only the
// first end counts.
func (c *editorCalls) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended != nil {
		return
	}
	c.ended = err
	for id, ch := range c.waiting {
		ch <- callAnswer{err: err}
		delete(c.waiting, id)
	}
}

// Call calls method on the editor and waits for its answer, or for ctx:
// the result is decoded into result (a *jsonv.Value takes it as parsed;
// nil ignores it). An error answer is an *Error; a closed connection is
// jsonrpc2.ErrClosed.
func (s *Conn) Call(ctx context.Context, method string, params, result any) error {
	calls := &s.stream.calls
	id, ch, err := calls.begin()
	if err != nil {
		return err
	}
	head := func(l []byte) []byte {
		l = strconv.AppendUint(append(l, `"id":`...), id, 10)
		return jsonv.AppendString(append(l, `,"method":`...), method)
	}
	key := "params"
	if params == nil {
		key = "" // JSON-RPC's params are an object or an array, or absent
	}
	// What the editor writes to a file or runs goes as it is; what it
	// shows (a permission prompt) is redacted.
	exact := method == "fs/write_text_file" || method == "terminal/create"
	if err := s.writeMessage(head, key, params, !exact); err != nil {
		calls.forget(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case a := <-ch:
		if a.err != nil {
			return a.err
		}
		return decodeResult(a.result, result)
	case <-ctx.Done():
		calls.forget(id)
		return ctx.Err()
	}
}

// decodeResult puts an answer's result into target.
func decodeResult(v jsonv.Value, target any) error {
	if !v.IsValid() {
		v = jsonv.NullValue()
	}
	switch t := target.(type) {
	case nil:
		return nil
	case *jsonv.Value:
		*t = v
		return nil
	case *json.RawMessage:
		*t = v.Bytes()
		return nil
	}
	return v.Decode(target)
}

// routeAnswer hands line to the call it answers, if it is an answer (a
// JSON-RPC object with an id and no method); false for anything else,
// which the usual path judges (a request, a notification, a line that is
// not JSON). An answer to no call of ours is logged and dropped, as
// jsonrpc2 drops one. The line is parsed once, losslessly; one the strict
// parser refuses (a lone surrogate escape in a file's text, say) is read
// by encoding/json instead, as the connection would have.
func (s *lineStream) routeAnswer(line []byte) bool {
	v, err := jsonv.Parse(line)
	if err != nil {
		return s.routeLenient(line)
	}
	if v.Kind() != jsonv.Object || v.Has("method") {
		return false
	}
	idv, ok := v.Get("id")
	if !ok {
		return false
	}
	var a callAnswer
	if e, ok := v.Get("error"); ok && e.Kind() != jsonv.Null {
		a.err = answerError(e.Bytes())
	} else {
		a.result, _ = v.Get("result")
	}
	n, ok := idv.Int()
	s.deliver(ok && n > 0, uint64(n), idv.String(), a)
	return true
}

// routeLenient is routeAnswer for a line the strict parser refused.
func (s *lineStream) routeLenient(line []byte) bool {
	var m struct {
		ID     json.RawMessage  `json:"id"`
		Method *json.RawMessage `json:"method"`
		Result json.RawMessage  `json:"result"`
		Error  json.RawMessage  `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil || len(m.ID) == 0 || line[0] != '{' {
		return false
	}
	var a callAnswer
	if len(m.Error) > 0 && string(m.Error) != "null" {
		a.err = answerError(m.Error)
	} else {
		var g any
		err := error(nil)
		if len(m.Result) > 0 {
			err = json.Unmarshal(m.Result, &g) // a number past float64's range fails
		}
		if err == nil {
			a.result, err = jsonv.FromGo(g)
		}
		if err != nil {
			a.err = fmt.Errorf("the editor's answer cannot be read: %w", err)
		}
	}
	var n uint64
	known := json.Unmarshal(m.ID, &n) == nil && n > 0
	s.deliver(known, n, string(m.ID), a)
	return true
}

// deliver hands a to call n, logging an answer to no call of ours.
func (s *lineStream) deliver(known bool, n uint64, id string, a callAnswer) {
	if !known || !s.calls.answer(n, a) {
		s.log.Warn("dropped an answer to no call of ours", "id", id)
	}
}

// answerError is the *jsonrpc2.Error an answer's error member says; one
// that is not a JSON-RPC error object is reported as -32603.
func answerError(raw []byte) error {
	var e jsonrpc2.Error
	if json.Unmarshal(raw, &e) != nil || e.Code == 0 && e.Message == "" {
		return &jsonrpc2.Error{Code: CodeInternalError, Message: "the editor answered with a malformed error: " + string(raw)}
	}
	return &e
}
