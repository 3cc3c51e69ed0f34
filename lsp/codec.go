package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// maxMessage caps one message a server sends. The largest a server has
// reason to send is an answer about the client's own files: the client
// sends at most an 8 MiB file (tools' maxCheckedFile), and a symbol or
// reference list is capped far below it when shown (maxAnswer lines).
// Twice the largest file leaves room for JSON's escaping of it; past
// that, a message is an attack on the bridge's memory, not an answer.
const maxMessage = 16 << 20

// maxHeaders caps a message's header lines (LSP names two:
// Content-Length and Content-Type; LSP 3.17 §Base Protocol, read
// 2026-12-08); a header line is capped by the reader's buffer (4 KiB).
const maxHeaders = 16

// errProtocol marks a message that breaks LSP's framing or JSON-RPC:
// the server is stopped (and restarted) on it.
var errProtocol = errors.New("broke the protocol")

// codec is VSCodeObjectCodec's framing (Content-Length headers, LSP's
// base protocol) with the reading held to bounds: header lines and their
// count, a Content-Length that is one decimal number no larger than
// maxMessage, a body read as it arrives (never allocated from the
// header's word alone) and parsed whole, so that a body with trailing
// bytes cannot desynchronise the stream. Its first read error is kept
// for the server to say why the connection ended.
type codec struct {
	jsonrpc2.VSCodeObjectCodec // writing

	mu  sync.Mutex
	err error
}

// ReadObject implements jsonrpc2.ObjectCodec.
func (c *codec) ReadObject(r *bufio.Reader, v any) error {
	err := readFrame(r, v)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return err
}

// failure is the protocol error that ended the reading, nil when none
// did (the stream ended, or is still read).
func (c *codec) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(c.err, errProtocol) {
		return c.err
	}
	return nil
}

func protoErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errProtocol}, a...)...)
}

// readFrame reads one message into v.
func readFrame(r *bufio.Reader, v any) error {
	length := int64(-1)
	for n := 0; ; n++ {
		line, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return protoErr("a header line longer than %d bytes", r.Size())
		case err != nil && n == 0 && len(line) == 0:
			return err // the stream ended between messages
		case err != nil:
			return protoErr("the stream ended inside a header (%v)", err)
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			break
		}
		if n >= maxHeaders {
			return protoErr("more than %d header lines", maxHeaders)
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return protoErr("a header line without a colon: %q", truncate(line))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			value = strings.TrimSpace(value)
			l, err := strconv.ParseInt(value, 10, 64)
			if err != nil || l <= 0 || strings.HasPrefix(value, "+") {
				return protoErr("a Content-Length of %q", truncate([]byte(value)))
			}
			if l > maxMessage {
				return protoErr("a message of %d bytes (at most %d)", l, maxMessage)
			}
			length = l
		}
	}
	if length < 0 {
		return protoErr("no Content-Length header")
	}
	var body bytes.Buffer // grows with what arrives
	if _, err := io.Copy(&body, io.LimitReader(r, length)); err != nil {
		return protoErr("the stream ended inside a message (%v)", err)
	}
	if int64(body.Len()) != length {
		return protoErr("the stream ended inside a message (%d of %d bytes)", body.Len(), length)
	}
	if err := json.Unmarshal(body.Bytes(), v); err != nil {
		return protoErr("%v", err)
	}
	return nil
}
