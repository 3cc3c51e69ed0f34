package bridge

import (
	"context"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/internal/bufpool"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// notify sends a session/update; updates of one turn are written in order,
// before the turn's answer.
func (s *Server) notify(_ context.Context, sessionID string, update any) {
	select {
	case <-s.conn.DisconnectNotify():
		return // the connection is closed: nobody reads this any more
	default:
	}
	// One pass, straight into the line: nothing re-reads what is written.
	// The line's buffer is reused: a read card's updates are hundreds of
	// KB, and growing a fresh buffer for each cost copies and collections.
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	line := append(*buf, `{"jsonrpc":"2.0","method":"session/update","params":`...)
	line, err := jsonv.AppendGo(line, sessionNotification{SessionID: sessionID, Update: update})
	*buf = line
	if err != nil {
		s.log.Error("session/update not encodable", "err", err)
		return
	}
	line = append(line, '}', '\n')
	*buf = line
	if err := s.stream.writeLine(line); err != nil {
		s.log.Debug("session/update not sent", "err", err)
	}
}

// reply writes the response to request id in one pass, as notify writes
// an update: the result (or the error, when wireErr is not nil) goes
// straight into the line through jsonv.AppendGo, and nothing re-reads it
// (jsonrpc2's Reply encodes the result, then the response, then the
// message again, validating each time). It is safe for concurrent use.
// A result that cannot be encoded is a *replyEncodingError, and nothing
// is written.
func (s *Server) reply(id jsonrpc2.ID, result any, wireErr *jsonrpc2.Error) error {
	buf := bufpool.Get()
	defer bufpool.Put(buf)
	line := append(*buf, `{"jsonrpc":"2.0","id":`...)
	if id.IsString {
		line = jsonv.AppendString(line, id.Str)
	} else {
		line = strconv.AppendUint(line, id.Num, 10)
	}
	var err error
	if wireErr != nil {
		line = append(line, `,"error":`...)
		line, err = jsonv.AppendGo(line, wireErr)
	} else {
		line = append(line, `,"result":`...)
		line, err = jsonv.AppendGo(line, result)
	}
	*buf = line
	if err != nil {
		return &replyEncodingError{err}
	}
	line = append(line, '}', '\n')
	*buf = line
	return s.stream.writeLine(line)
}

// replyEncodingError is a result reply could not encode.
type replyEncodingError struct{ err error }

func (e *replyEncodingError) Error() string { return "the result cannot be encoded: " + e.err.Error() }
func (e *replyEncodingError) Unwrap() error { return e.err }
