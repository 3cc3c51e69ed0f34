package tools

// Scanning a file into a read's window of lines: the caps on lines and
// bytes, the cut of long lines, and the exact total.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// readerPool holds the 64 KiB line readers of reads: a fresh one (and an
// 8 KiB one before it) per read was the largest allocation of a 100-line
// read, and allocating and zeroing them 3 % of the bridge's CPU in a
// read-heavy benchmark (BenchmarkReadCPU's profile).
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64*1024) }}

// window scans br to the end, returning the requested lines (line and byte
// caps applied, CR before LF stripped) and the exact total line count.
func window(br *bufio.Reader, in readInput, display string) (readValue, bool, error) {
	v := readValue{Path: display, Offset: in.offset, Lines: card.ReadLines{}}
	var texts lineArena
	if in.offset == 1 {
		// What the reader holds already (all of a file smaller than its
		// buffer) sizes the window: one allocation for the lines and one
		// for their text, where growing them took a dozen.
		held, _ := br.Peek(br.Buffered())
		v.Lines = make(card.ReadLines, 0, min(in.limit, bytes.Count(held, []byte{'\n'})+1))
		texts.buf = make([]byte, 0, min(len(held), ReadMaxBytes))
	}
	outBytes, capped := 0, false
	for {
		want := !capped && v.TotalLines+1 >= in.offset && len(v.Lines) < in.limit
		line, err := readCappedLine(br, want)
		if err == io.EOF && line == nil {
			break
		}
		if err != nil && err != io.EOF {
			return v, false, fsError("FS_IO_ERROR", fmt.Sprintf("cannot read %q: %v", display, err))
		}
		v.TotalLines++
		if capped || v.TotalLines < in.offset || len(v.Lines) >= in.limit {
			continue
		}
		if !utf8.Valid(line) {
			return v, false, fsError("FS_NOT_TEXT", fmt.Sprintf("cannot read %q: not UTF-8 text", display))
		}
		text := truncateLine(texts.text(line))
		size := len(text)
		if len(v.Lines) > 0 {
			size++
		}
		if outBytes+size > ReadMaxBytes {
			capped = true
			continue
		}
		outBytes += size
		v.Lines = append(v.Lines, card.ReadFileLine{Number: v.TotalLines, Text: text})
	}
	if !capped && in.offset > v.TotalLines && !(v.TotalLines == 0 && in.offset == 1) {
		return v, false, fsError("FS_NOT_FOUND", fmt.Sprintf("offset %d is out of range for %q (%d lines)", in.offset, display, v.TotalLines))
	}
	return v, capped, nil
}

// lineArena holds a window's line texts in a few blocks (one, for most
// windows) instead of one allocation per line. Bytes are only ever
// appended to a block, never rewritten, so the strings made over it never
// change: a full block is replaced, not reused.
type lineArena struct{ buf []byte }

// text returns line as a string in the arena.
func (a *lineArena) text(line []byte) string {
	if len(line) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(line) {
		a.buf = make([]byte, 0, max(len(line), 2*cap(a.buf), 4096))
	}
	start := len(a.buf)
	a.buf = append(a.buf, line...)
	return unsafe.String(&a.buf[start], len(line))
}

// lineKeep is how many bytes of a line are kept: enough UTF-8 for the
// character cap plus one character, so that a cut line always overflows the
// cap (and truncateLine marks it), whatever its characters' widths.
const lineKeep = ReadMaxLineLength*4 + 4

// readCappedLine returns the next line without its "\n" (and a CR before
// it), keeping at most lineKeep bytes of it; nil and io.EOF at the end.
// Lines the caller does not want are consumed without being copied (and
// come back empty, not nil). A line that fits the reader's buffer comes
// back as a slice of it, valid until the next read.
func readCappedLine(br *bufio.Reader, want bool) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err == nil || err == io.EOF && len(chunk) > 0 {
		if !want {
			return []byte{}, nil
		}
		return endLine(chunk), nil
	}
	line := []byte{} // zero-size: does not allocate
	sawAny := false
	for first := true; ; first = false {
		if !first {
			chunk, err = br.ReadSlice('\n')
		}
		sawAny = sawAny || len(chunk) > 0
		// One byte past lineKeep, so that endLine sees the line was cut.
		if room := lineKeep + 1 - len(line); want && room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && !sawAny {
			return nil, io.EOF
		}
		line = endLine(line)
		if err == io.EOF {
			return line, nil
		}
		return line, err
	}
}

// endLine is a line as returned: one longer than lineKeep bytes is cut
// there, at a character boundary (so that it stays valid UTF-8); a whole
// line loses its "\n" and a "\r" before it.
func endLine(b []byte) []byte {
	if len(b) > lineKeep {
		return cutAtRune(b, lineKeep)
	}
	return trimEOL(b)
}

// trimEOL strips a line's "\n" and a "\r" before it.
func trimEOL(b []byte) []byte { return bytesTrimSuffix(bytesTrimSuffix(b, "\n"), "\r") }

// cutAtRune cuts b to at most n bytes without splitting a rune at the end:
// a long line's tail is dropped, so a multi-byte character the cut went
// through must not make the kept part invalid UTF-8.
func cutAtRune(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				b = b[:len(b)-i]
			}
			break
		}
	}
	return b
}

func bytesTrimSuffix(b []byte, s string) []byte {
	if len(b) >= len(s) && string(b[len(b)-len(s):]) == s {
		return b[:len(b)-len(s)]
	}
	return b
}

func truncateLine(s string) string {
	// No more characters than bytes: most lines need no counting.
	if len(s) <= ReadMaxLineLength || utf8.RuneCountInString(s) <= ReadMaxLineLength {
		return s
	}
	i, n := 0, 0
	for i < len(s) && n < ReadMaxLineLength {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return s[:i] + "... (line truncated to " + strconv.Itoa(ReadMaxLineLength) + " chars)"
}
