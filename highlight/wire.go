package highlight

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ProtocolLine is the helper's first line; a helper that prints anything
// else speaks another version and is not used.
const ProtocolLine = "dsh-highlight 1"

// Answer statuses.
const (
	statusTokens  = 0
	statusUnknown = 1
	statusError   = 2
)

// Frame limits: a request or answer past them is refused rather than
// allocated (a corrupt length must not exhaust memory).
const (
	maxString = 64 << 20
	maxCount  = 16 << 20
)

// Request is one tokenization: the path (for the language), the language
// hint, and the text's lines.
type Request struct {
	ID    uint64
	Path  string
	Lang  string
	Lines []string
}

// Answer is the helper's reply to the request with the same ID. Unknown
// means no lexer knows the language; Err is the helper's failure.
type Answer struct {
	ID      uint64
	Tokens  TokenLines
	Unknown bool
	Err     string
}

// AppendRequest appends r's frame, growing dst at most once.
func AppendRequest(dst []byte, r Request) []byte {
	need := 4*binary.MaxVarintLen64 + len(r.Path) + len(r.Lang)
	for _, l := range r.Lines {
		need += binary.MaxVarintLen64 + len(l)
	}
	dst = slices.Grow(dst, need)
	dst = binary.AppendUvarint(dst, r.ID)
	dst = appendString(dst, r.Path)
	dst = appendString(dst, r.Lang)
	dst = binary.AppendUvarint(dst, uint64(len(r.Lines)))
	for _, l := range r.Lines {
		dst = appendString(dst, l)
	}
	return dst
}

// ReadRequest reads one request frame; io.EOF at a frame boundary means the
// bridge is gone.
func ReadRequest(r *bufio.Reader) (Request, error) {
	var q Request
	var err error
	if q.ID, err = binary.ReadUvarint(r); err != nil {
		return q, err
	}
	if q.Path, err = readString(r); err != nil {
		return q, frameErr(err)
	}
	if q.Lang, err = readString(r); err != nil {
		return q, frameErr(err)
	}
	n, err := readCount(r)
	if err != nil {
		return q, frameErr(err)
	}
	q.Lines = make([]string, 0, min(n, 1<<16))
	for range n {
		l, err := readString(r)
		if err != nil {
			return q, frameErr(err)
		}
		q.Lines = append(q.Lines, l)
	}
	return q, nil
}

// AppendAnswer appends a's frame; the span types are written once each.
func AppendAnswer(dst []byte, a Answer) []byte {
	dst = binary.AppendUvarint(dst, a.ID)
	switch {
	case a.Err != "":
		dst = append(dst, statusError)
		return appendString(dst, a.Err)
	case a.Unknown:
		return append(dst, statusUnknown)
	}
	dst = append(dst, statusTokens)
	index := map[string]uint64{}
	var names []string
	for _, l := range a.Tokens {
		for _, sp := range l {
			if _, ok := index[sp.Type]; !ok {
				index[sp.Type] = uint64(len(names))
				names = append(names, sp.Type)
			}
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(names)))
	for _, n := range names {
		dst = appendString(dst, n)
	}
	dst = binary.AppendUvarint(dst, uint64(len(a.Tokens)))
	for _, l := range a.Tokens {
		dst = binary.AppendUvarint(dst, uint64(len(l)))
		for _, sp := range l {
			dst = binary.AppendUvarint(dst, uint64(sp.Start))
			dst = binary.AppendUvarint(dst, uint64(sp.End-sp.Start))
			dst = binary.AppendUvarint(dst, index[sp.Type])
		}
	}
	return dst
}

// ReadAnswer reads one answer frame. Spans are checked as they are read:
// a span that ends before it starts, overlaps the one before it, or names
// a type the frame did not list makes the frame corrupt. Past [MaxSpans]
// in all, the spans are read but not kept.
func ReadAnswer(r *bufio.Reader) (Answer, error) {
	var a Answer
	var err error
	if a.ID, err = binary.ReadUvarint(r); err != nil {
		return a, err
	}
	status, err := r.ReadByte()
	if err != nil {
		return a, frameErr(err)
	}
	switch status {
	case statusUnknown:
		a.Unknown = true
		return a, nil
	case statusError:
		if a.Err, err = readString(r); err != nil {
			return a, frameErr(err)
		}
		if a.Err == "" {
			a.Err = "unknown error"
		}
		return a, nil
	case statusTokens:
	default:
		return a, fmt.Errorf("%w: status %d", ErrCorrupt, status)
	}
	nt, err := readCount(r)
	if err != nil {
		return a, frameErr(err)
	}
	names := make([]string, 0, min(nt, 1024))
	for range nt {
		s, err := readString(r)
		if err != nil {
			return a, frameErr(err)
		}
		names = append(names, s)
	}
	nl, err := readCount(r)
	if err != nil {
		return a, frameErr(err)
	}
	a.Tokens = make(TokenLines, 0, min(nl, 1<<16))
	var spans []Span // the lines' spans, carved out of shared chunks
	kept := 0        // spans kept so far, at most MaxSpans
	for range nl {
		ns, err := readCount(r)
		if err != nil {
			return a, frameErr(err)
		}
		keep := min(ns, MaxSpans-kept) // the rest are read and checked, not kept
		var line []Span
		switch {
		case keep > spanChunk: // a line of its own (bounded: the count may lie)
			line = make([]Span, 0, min(keep, 1<<12))
		case keep > 0:
			if cap(spans)-len(spans) < keep {
				spans = make([]Span, 0, spanChunk)
			}
			n := len(spans)
			spans = spans[:n+keep]
			line = spans[n : n : n+keep] // exactly keep fit: appends stay in the chunk
		}
		end := 0
		for range ns {
			var v [3]uint64
			for i := range v {
				if v[i], err = binary.ReadUvarint(r); err != nil {
					return a, frameErr(err)
				}
			}
			if v[0] > maxString || v[1] == 0 || v[1] > maxString || v[2] >= uint64(len(names)) || int(v[0]) < end {
				return a, fmt.Errorf("%w: span %v", ErrCorrupt, v)
			}
			sp := Span{Start: int(v[0]), End: int(v[0] + v[1]), Type: names[v[2]]}
			end = sp.End
			if len(line) < keep {
				line = append(line, sp)
			}
		}
		kept += len(line)
		a.Tokens = append(a.Tokens, line)
	}
	return a, nil
}

// spanChunk is how many spans one allocation holds: an answer's lines
// share chunks instead of allocating a slice each (a 100-line read of Go
// has some 450 spans on 100 lines).
const spanChunk = 512

// ErrCorrupt marks a frame that does not follow the protocol.
var ErrCorrupt = errors.New("highlight: corrupt frame")

func frameErr(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func readCount(r *bufio.Reader) (int, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, err
	}
	if n > maxCount {
		return 0, fmt.Errorf("%w: count %d", ErrCorrupt, n)
	}
	return int(n), nil
}

func readString(r *bufio.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > maxString {
		return "", fmt.Errorf("%w: length %d", ErrCorrupt, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}
