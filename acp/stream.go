package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/dsh-bridge/dsh-bridge/internal/batchwrite"
)

// MaxMessageBytes bounds one inbound JSON-RPC line (a 4 MiB prompt with
// JSON escaping fits with room to spare).
const MaxMessageBytes = 64 << 20

// lineStream is the newline-delimited JSON ObjectStream of ACP's stdio
// transport. Unlike jsonrpc2.NewPlainObjectStream, a line that is not JSON
// (or not a JSON-RPC object, such as a batch array) is answered here with
// -32700 or -32600 and skipped: the connection stays up, as ACP's reference
// SDK does. Each message is one line; lines are written in the order they
// are given, by a batchwrite.Writer (several may go out in one write), and
// the owner drains it once, at the end.
type lineStream struct {
	r   *bufio.Reader
	w   *batchwrite.Writer
	c   io.Closer
	log *slog.Logger
	// onEOF, when set, runs once when the input ends, before the
	// connection is told: in-flight handlers can still write replies.
	onEOF func()
	// head and tail are the ends of the last oversized line.
	head, tail []byte
	// calls are the bridge's calls to the editor: the read loop hands
	// them their answers.
	calls editorCalls
}

func newLineStream(r io.Reader, w io.Writer, c io.Closer, log *slog.Logger) *lineStream {
	return &lineStream{r: bufio.NewReaderSize(r, 1<<20), w: batchwrite.New(w), c: c, log: log}
}

// WriteObject writes one message as one line. It completes jsonrpc2's
// ObjectStream, which the bridge does not write through: its replies,
// updates and calls to the editor are written by the Server, each in one
// pass (outgoing.go, calls.go).
func (s *lineStream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.writeLine(b)
}

// writeLine queues b as one line: b ends with '\n', or one is added. It
// does not keep b after it returns. Its error is the first failed write's
// (or, after drain, that the stream is closed).
func (s *lineStream) writeLine(b []byte) error { return s.w.WriteLine(b) }

// flush waits until the lines queued so far are written.
func (s *lineStream) flush() error { return s.w.Flush() }

// drain writes what is queued, waiting up to wait, and takes no more
// lines; false when the output did not take it in time. Called exactly
// once, by the stream's owner, when nothing more is to be said.
func (s *lineStream) drain(wait time.Duration) bool { return s.w.Drain(wait) }

// ReadObject reads the next well-formed message into v, answering and
// skipping malformed lines. An oversized line is never silently lost: a
// reply (to one of our calls) becomes an error reply with the same id, so
// the call fails at once instead of waiting forever; a request gets its
// -32600 with its id.
func (s *lineStream) ReadObject(v any) error {
	for {
		line, err := s.readLine()
		if errors.Is(err, errOversized) {
			if synth := s.oversized(); synth != nil {
				s.routeAnswer(synth)
			}
			continue
		}
		if err != nil {
			if s.onEOF != nil {
				s.onEOF()
				s.onEOF = nil
			}
			return err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if s.routeAnswer(line) {
			continue
		}
		if !json.Valid(line) {
			s.reject(-32700, "Parse error: the line is not valid JSON")
			continue
		}
		if line[0] != '{' {
			s.reject(-32600, "Invalid Request: JSON-RPC batches and non-object messages are not supported")
			continue
		}
		if err := json.Unmarshal(line, v); err != nil {
			s.reject(-32600, "Invalid Request: "+err.Error())
			continue
		}
		return nil
	}
}

// errOversized reports a line longer than MaxMessageBytes; its head and
// tail are kept in lineStream.head/tail.
var errOversized = errors.New("message larger than the limit")

// edge is how much of an oversized line's start and end is kept to find
// its id.
const edge = 4096

// readLine reads one line of at most MaxMessageBytes; a longer line is
// drained, its first and last bytes kept, and errOversized returned.
func (s *lineStream) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) <= MaxMessageBytes {
			buf = append(buf, chunk...)
		} else if buf != nil || len(chunk) > 0 {
			s.head = append(s.head[:0], buf[:min(len(buf), edge)]...)
			tail := append([]byte(nil), chunk...)
			for err == bufio.ErrBufferFull { // drain the rest of the line
				chunk, err = s.r.ReadSlice('\n')
				tail = append(tail[max(0, len(tail)-edge):], chunk...)
			}
			s.tail = append(s.tail[:0], tail[max(0, len(tail)-edge):]...)
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errOversized
		}
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(buf)) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}

// reject answers an unreadable message with a null-id error response.
func (s *lineStream) reject(code int, msg string) { s.rejectID(nil, code, msg) }

func (s *lineStream) rejectID(id json.RawMessage, code int, msg string) {
	s.log.Warn("rejected an inbound message", "code", code, "message", msg)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_ = s.writeLine(b)
}

// oversized handles a dropped line: a request is answered -32600 with its
// id; a reply to one of our calls is turned into an error reply for the
// caller (returned, to be routed to its call). Without a readable id
// the line is answered with a null id and nothing else can be done.
func (s *lineStream) oversized() []byte {
	const msg = "message larger than the limit (64 MiB)"
	id, isRequest := oversizedID(s.head, s.tail)
	switch {
	case id == nil:
		s.reject(-32600, "Invalid Request: "+msg)
		return nil
	case isRequest:
		s.rejectID(id, -32600, "Invalid Request: "+msg)
		return nil
	}
	s.log.Warn("dropped an oversized reply from the client; its call fails", "id", string(id))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": -32603, "message": "the client's reply was larger than the limit (64 MiB) and was dropped"}})
	return b
}

var (
	idKey     = []byte(`"id":`)
	methodKey = []byte(`"method":`)
)

// oversizedID finds the top-level id of a line from its first and last
// bytes (a key can only appear unescaped outside strings, and an id comes
// before or after the bulk of a message), and whether the line is a
// request.
func oversizedID(head, tail []byte) (json.RawMessage, bool) {
	isRequest := bytes.Contains(head, methodKey) && !bytes.Contains(head, []byte(`"result":`)) && !bytes.Contains(head, []byte(`"error":`))
	for _, part := range [][]byte{head, tail} {
		if i := bytes.Index(part, idKey); i >= 0 {
			dec := json.NewDecoder(bytes.NewReader(part[i+len(idKey):]))
			var id json.RawMessage
			if dec.Decode(&id) == nil && len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
				return id, isRequest
			}
		}
	}
	return nil, isRequest
}

// Close closes the underlying connection.
func (s *lineStream) Close() error {
	s.calls.end(jsonrpc2.ErrClosed) // no answer can come any more: the connection closes us when the input ends
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}
