package chromatok

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// MaxHold is the longest an answer waits for others to share its write
// (see Serve): under a frame at 60 Hz, so colours never visibly lag.
const MaxHold = 16 * time.Millisecond

// Serve speaks the helper protocol: it writes highlight.ProtocolLine, then
// answers each request frame from in, up to workers at a time (GOMAXPROCS
// when workers < 1), in the order they finish. It returns nil when in ends
// at a frame boundary, after every started request was answered, and an
// error for a corrupt frame or a failed write. A request that panics the
// lexer is answered with an error; the helper goes on.
//
// An answer is written at once when no other request is waiting. While
// some are (a turn's reads arrive faster than they are tokenized), it is
// held, for MaxHold at most, so that one write carries several answers and
// the bridge wakes once for them.
func Serve(in io.Reader, out io.Writer, workers int) error {
	return serveHeld(in, out, workers, MaxHold)
}

// answerFn computes one answer; tests slow it down.
var answerFn = answer

func serveHeld(in io.Reader, out io.Writer, workers int, hold time.Duration) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	aw := &answerWriter{w: bufio.NewWriterSize(out, 64<<10), hold: hold}
	aw.received()
	aw.answer([]byte(highlight.ProtocolLine + "\n"))

	r := bufio.NewReaderSize(in, 64<<10)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var rerr error
	for {
		q, err := highlight.ReadRequest(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				rerr = err
			}
			break
		}
		aw.received()
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			aw.answer(highlight.AppendAnswer(nil, answerFn(q)))
		})
	}
	wg.Wait()
	return errors.Join(rerr, aw.close())
}

// answerWriter writes answer frames, holding them back while other
// requests wait (see Serve).
type answerWriter struct {
	mu      sync.Mutex
	w       *bufio.Writer
	hold    time.Duration
	err     error       // the first failed write: later answers are dropped
	waiting int         // requests received and not yet answered
	since   time.Time   // when the oldest held answer was written to w; zero when none is held
	timer   *time.Timer // flushes what is held once hold has passed
}

// received counts a request that will be answered.
func (a *answerWriter) received() {
	a.mu.Lock()
	a.waiting++
	a.mu.Unlock()
}

// answer writes one request's frame, flushing it unless other requests
// are waiting and the oldest held answer is younger than hold.
func (a *answerWriter) answer(frame []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.waiting--
	if a.err != nil {
		return
	}
	if _, err := a.w.Write(frame); err != nil {
		a.err = err
		return
	}
	switch {
	case a.waiting == 0 || a.hold <= 0:
		a.flush()
	case a.since.IsZero():
		a.since = time.Now()
		if a.timer == nil {
			a.timer = time.AfterFunc(a.hold, a.expire)
		} else {
			a.timer.Reset(a.hold)
		}
	case time.Since(a.since) >= a.hold:
		a.flush()
	}
}

// expire flushes what is held once hold has passed (a flush the timer
// makes early, for a hold that began after it was set, is harmless).
func (a *answerWriter) expire() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.since.IsZero() {
		a.flush()
	}
}

// flush writes what w buffers; a.mu is held.
func (a *answerWriter) flush() {
	if a.err == nil {
		a.err = a.w.Flush()
	}
	a.since = time.Time{}
	if a.timer != nil {
		a.timer.Stop()
	}
}

// close writes anything still held, stops the timer and returns the
// first write error.
func (a *answerWriter) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flush()
	return a.err
}

// answer tokenizes one request, turning a lexer's panic into an error
// answer.
func answer(q highlight.Request) (a highlight.Answer) {
	a.ID = q.ID
	defer func() {
		if v := recover(); v != nil {
			a = highlight.Answer{ID: q.ID, Err: fmt.Sprintf("the lexer panicked: %v", v)}
		}
	}()
	tokens, known, err := Tokenize(q.Path, q.Lang, q.Lines)
	switch {
	case err != nil:
		a.Err = err.Error()
	case !known:
		a.Unknown = true
	default:
		a.Tokens = tokens
	}
	return a
}
