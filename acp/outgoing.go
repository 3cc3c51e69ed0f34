package acp

import (
	"errors"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/internal/bufpool"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// writeMessage writes one JSON-RPC message in one pass, straight into a
// pooled line (a read card's update is hundreds of KB; growing a fresh
// buffer for each cost copies and collections): head appends the members
// that follow "jsonrpc", then key names the last member, whose value
// jsonv.AppendGo writes ("" writes none). Nothing re-reads what is
// written: jsonrpc2 would encode the value, then the message, then the
// line, encoding/json checking each. A value that cannot be encoded is an
// *encodingError, and nothing is written. With redact, every secret
// value in the message's strings is redacted (secrets.RedactJSON): what
// the editor shows; a file's text it writes, or a command it runs, is
// sent as it is. It is safe for concurrent use.
func (s *Conn) writeMessage(head func([]byte) []byte, key string, value any, redact bool) error {
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	line := head(append(*buf, `{"jsonrpc":"2.0",`...))
	var err error
	if key != "" {
		line = append(jsonv.AppendString(append(line, ','), key), ':')
		line, err = jsonv.AppendGo(line, value)
	}
	*buf = line
	if err != nil {
		return &encodingError{key, err}
	}
	line = append(line, '}', '\n')
	*buf = line
	if redact {
		line = secrets.RedactJSON(line)
	}
	return s.stream.writeLine(line)
}

// ErrUnencodable is what a message's value that cannot be encoded wraps:
// nothing of that message was written.
var ErrUnencodable = errors.New("a value cannot be encoded")

// encodingError is a message's member writeMessage could not encode.
type encodingError struct {
	member string
	err    error
}

func (e *encodingError) Error() string {
	return "the " + e.member + " cannot be encoded: " + e.err.Error()
}
func (e *encodingError) Unwrap() []error { return []error{ErrUnencodable, e.err} }

// Notify sends a notification: with session/update, the updates of one
// turn are written in order, before the turn's answer. Every secret value
// in its strings is redacted. Once the connection has ended it writes
// nothing and returns jsonrpc2.ErrClosed; a params that cannot be encoded
// is an error that says so, and nothing is written.
func (s *Conn) Notify(method string, params any) error {
	select {
	case <-s.done:
		return jsonrpc2.ErrClosed // the connection is closed: nobody reads this any more
	default:
	}
	return s.writeMessage(func(l []byte) []byte { return jsonv.AppendString(append(l, `"method":`...), method) },
		"params", params, true)
}

// reply writes the response to request id: its result, or its error when
// wireErr is not nil. A result that cannot be encoded is an
// *encodingError, and nothing is written.
func (s *Conn) reply(id jsonrpc2.ID, result any, wireErr *jsonrpc2.Error) error {
	head := func(l []byte) []byte {
		l = append(l, `"id":`...)
		if id.IsString {
			return jsonv.AppendString(l, id.Str)
		}
		return strconv.AppendUint(l, id.Num, 10)
	}
	if wireErr != nil {
		return s.writeMessage(head, "error", wireErr, true)
	}
	return s.writeMessage(head, "result", result, true)
}
