package chromatok

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/dsh-bridge/dsh-bridge/highlight"
)

// Serve speaks the helper protocol: it writes highlight.ProtocolLine, then
// answers each request frame from in, up to workers at a time (GOMAXPROCS
// when workers < 1), in the order they finish. It returns nil when in ends
// at a frame boundary, after every started request was answered, and an
// error for a corrupt frame or a failed write. A request that panics the
// lexer is answered with an error; the helper goes on.
func Serve(in io.Reader, out io.Writer, workers int) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	w := bufio.NewWriterSize(out, 64<<10)
	var wmu sync.Mutex
	var werr error
	write := func(frame []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		if werr != nil {
			return
		}
		if _, err := w.Write(frame); err != nil {
			werr = err
			return
		}
		werr = w.Flush()
	}
	write([]byte(highlight.ProtocolLine + "\n"))

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
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			write(highlight.AppendAnswer(nil, answer(q)))
		})
	}
	wg.Wait()
	wmu.Lock()
	defer wmu.Unlock()
	return errors.Join(rerr, werr)
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
