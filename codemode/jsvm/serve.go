package jsvm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Serve is the runner's side of one run (package coderun's protocol): it
// warms up, writes the protocol line, reads the Run message, runs the program, and
// returns once it has written the Outcome. With status (the process's
// /proc/self/status, opened before the process was confined) the run's
// memory is capped as well (limitData). Settle and Abort messages are
// read on a goroutine of its own, which ends when in ends; Serve does not
// wait for it (the process exits). The end of in is not an abort (the
// runner dies with the bridge): only the calls still pending can no longer
// settle, and the run's wall clock ends a program that awaits them.
func Serve(in io.Reader, out io.Writer, status io.ReaderAt) error {
	warmUp() // before the protocol line: a runner is ready when it is warm
	w := &lineWriter{w: bufio.NewWriterSize(out, 64<<10)}
	if err := w.raw([]byte(coderun.ProtocolLine + "\n")); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), coderun.MaxLine)
	first, err := next(sc)
	if err == io.EOF {
		return nil // nothing to run
	}
	if err != nil {
		return err
	}
	if first.Run == nil {
		return errors.New("the first message is not a run")
	}
	req := first.Run
	if err := limitData(status, req.HeapHeadroom); err != nil {
		return fmt.Errorf("limiting the run's memory: %w", err)
	}
	ctx, abort := context.WithCancelCause(context.Background())
	defer abort(nil)
	calls := &pendingCalls{m: map[uint64]coderun.Settle{}}
	go func() { // ends with in: the bridge closes it, or the process exits
		for {
			m, err := next(sc)
			switch {
			case err != nil:
				return
			case m.Abort != "":
				abort(errors.New(m.Abort))
			case m.Settle != nil:
				if s := calls.take(m.Settle.ID); s != nil {
					s(m.Settle.Value, m.Settle.Error, m.Settle.OK)
				}
			}
		}
	}()
	var n uint64
	var werr error
	send := func(m coderun.FromRunner, flush bool) {
		if werr == nil {
			werr = w.send(m, flush)
		}
	}
	o := Run(ctx, coderun.Program{
		Code:           req.Code,
		Names:          req.Names,
		Timeout:        time.Duration(req.TimeoutMs) * time.Millisecond,
		MaxOutputBytes: req.MaxOutputBytes,
		HeapHeadroom:   req.HeapHeadroom,
		Dispatch: func(name string, args jsonv.Value, settle coderun.Settle) {
			n++
			calls.put(n, settle)
			send(coderun.FromRunner{Call: &coderun.CallMsg{ID: n, Name: name, Args: args}}, false)
		},
		Yield: func() { send(coderun.FromRunner{Yield: true}, true) },
	})
	send(coderun.FromRunner{Outcome: &o}, true)
	return werr
}

// warmUp runs a small program before the real one is read: the first
// transform and the first VM of a process fault in esbuild's and goja's
// code and build their tables, which a
// runner started ahead of its run (the bridge keeps a spare) then does not
// spend on the run.
func warmUp() {
	Run(context.Background(), coderun.Program{
		Code:     "const xs: number[] = [1, 2];\nconst o = {a: `${xs.length}`, ...{b: [1.5]}};\ntry { JSON.parse('{'); } catch (e) { console.log(String(e)); }\nreturn await Promise.resolve(o);",
		Dispatch: func(string, jsonv.Value, coderun.Settle) {},
		Timeout:  time.Second,
	})
}

// next reads one message.
func next(sc *bufio.Scanner) (coderun.ToRunner, error) {
	var m coderun.ToRunner
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return m, err
		}
		return m, io.EOF
	}
	if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
		return m, fmt.Errorf("a message that is not the protocol's: %w", err)
	}
	return m, nil
}

// pendingCalls are the settles of the calls the bridge has not answered.
type pendingCalls struct {
	mu sync.Mutex
	m  map[uint64]coderun.Settle
}

func (p *pendingCalls) put(id uint64, s coderun.Settle) {
	p.mu.Lock()
	p.m[id] = s
	p.mu.Unlock()
}

// take removes and returns call id's settle; nil when unknown or settled.
func (p *pendingCalls) take(id uint64) coderun.Settle {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.m[id]
	delete(p.m, id)
	return s
}

// flushDelay is how long a message may wait in the buffer while the
// program's synchronous part still runs. A variable only so that a test
// can make it long.
var flushDelay = time.Millisecond

// lineWriter writes one message per line. Messages are flushed when the
// program hands control back (yield, outcome), so that the bridge sees the
// calls of one synchronous part together, as an in-process host would,
// and at most flushDelay after they were written.
type lineWriter struct {
	mu    sync.Mutex
	w     *bufio.Writer
	timer *time.Timer // pending flush, nil when the buffer is empty
	err   error
}

// send writes m; flush forces it out now.
func (l *lineWriter) send(m coderun.FromRunner, flush bool) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, l.err = l.w.Write(append(b, '\n')); l.err != nil {
		return l.err
	}
	if flush {
		return l.flushLocked()
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(flushDelay, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			_ = l.flushLocked()
		})
	}
	return nil
}

func (l *lineWriter) flushLocked() error {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.err == nil {
		l.err = l.w.Flush()
	}
	return l.err
}

func (l *lineWriter) raw(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, l.err = l.w.Write(b); l.err != nil {
		return l.err
	}
	return l.flushLocked()
}
