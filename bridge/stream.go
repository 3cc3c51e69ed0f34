package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// MaxMessageBytes bounds one inbound JSON-RPC line (a 4 MiB prompt with
// JSON escaping fits with room to spare).
const MaxMessageBytes = 64 << 20

// lineStream is the newline-delimited JSON ObjectStream of ACP's stdio
// transport. Unlike jsonrpc2.NewPlainObjectStream, a line that is not JSON
// (or not a JSON-RPC object, such as a batch array) is answered here with
// -32700 or -32600 and skipped: the connection stays up, as ACP's reference
// SDK does. Writes are serialized; each message is one line.
type lineStream struct {
	r   *bufio.Reader
	w   io.Writer
	c   io.Closer
	mu  sync.Mutex // serializes writes
	log *slog.Logger
	// onEOF, when set, runs once when the input ends, before the
	// connection is told: in-flight handlers can still write replies.
	onEOF func()
}

func newLineStream(r io.Reader, w io.Writer, c io.Closer, log *slog.Logger) *lineStream {
	return &lineStream{r: bufio.NewReaderSize(r, 1<<20), w: w, c: c, log: log}
}

// WriteObject writes one message as one line.
func (s *lineStream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.writeLine(b)
}

func (s *lineStream) writeLine(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.w.Write(append(b, '\n'))
	return err
}

// ReadObject reads the next well-formed message into v, answering and
// skipping malformed lines.
func (s *lineStream) ReadObject(v any) error {
	for {
		line, err := s.readLine()
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

// readLine reads one line of at most MaxMessageBytes; a longer line is
// discarded and answered with -32600.
func (s *lineStream) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(buf)+len(chunk) <= MaxMessageBytes {
			buf = append(buf, chunk...)
		} else if buf != nil || len(chunk) > 0 {
			buf = buf[:0]
			// Drain the rest of the oversized line.
			for err == bufio.ErrBufferFull {
				_, err = s.r.ReadSlice('\n')
			}
			s.reject(-32600, "Invalid Request: message larger than the limit")
			if err != nil {
				return nil, err
			}
			continue
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
func (s *lineStream) reject(code int, msg string) {
	s.log.Warn("rejected an inbound message", "code", code, "message", msg)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	_ = s.writeLine(b)
}

// Close closes the underlying connection.
func (s *lineStream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}
