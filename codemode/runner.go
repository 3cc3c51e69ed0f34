package codemode

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
	"github.com/dsh-bridge/dsh-bridge/internal/helperbin"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Timing of a runner process.
const (
	// handshakeTimeout bounds the runner's protocol line: a binary that is
	// not the runner must not hang a run.
	handshakeTimeout = 5 * time.Second
	// stopGrace is how long a run may take to end after it was aborted or
	// its wall clock ran out (a native built-in in a long step does not
	// see the interrupt) before the process is killed, and how long the
	// runner may take to exit after its outcome.
	stopGrace = 2 * time.Second
	// stderrHead is how much of the runner's stderr a failure quotes (the
	// start of it).
	stderrHead = 2 << 10
)

// LocateRunner finds dsh-code: $DSH_CODE_RUNNER (a path; "off" disables
// Code Mode's runner), else dsh-code next to this executable (symlinks
// resolved), else on $PATH. Empty when there is none.
func LocateRunner() string { return helperbin.Locate("dsh-code", "DSH_CODE_RUNNER") }

// Run runs p in a fresh runner process (dsh-code at path) and returns when
// the program settles, fails, times out, outgrows its output or heap
// limits, the runner dies (kind worker-exit), or ctx ends (kind abort).
// Dispatch and Yield are called on Run's goroutine. Binding calls still in
// flight when Run returns are the caller's to settle or abandon; their
// late settlements are ignored.
func Run(ctx context.Context, path string, p Program) Outcome {
	p = p.WithDefaults()
	if ctx.Err() != nil {
		return coderun.Failed(KindAbort, abortMessage(ctx))
	}
	if path == "" {
		return coderun.Failed(KindWorkerExit, "Code Mode's runner, dsh-code, is not installed: install it next to dsh-bridge (make build does), or name it in DSH_CODE_RUNNER")
	}
	rp, wasSpare, err := takeRunner(path)
	if err != nil {
		return coderun.Failed(KindWorkerExit, "the code runner did not start: "+err.Error())
	}
	defer refill(path) // a runner that does not start gets no spare either
	o, heard := drive(ctx, rp, p)
	if wasSpare && !heard && o.Err != nil && o.Err.Kind == KindWorkerExit && ctx.Err() == nil {
		// The spare died while it waited (it was killed, or it hit a
		// limit): the program never reached it, so it runs on a new one.
		if rp, err = startRunner(path); err != nil {
			return coderun.Failed(KindWorkerExit, "the code runner did not start: "+err.Error())
		}
		o, _ = drive(ctx, rp, p)
	}
	return o
}

// drive runs p on rp and stops rp; heard is whether the runner sent
// anything.
func drive(ctx context.Context, rp *runnerProc, p Program) (o Outcome, heard bool) {
	kill := true
	defer func() { rp.stop(kill) }()
	req := &coderun.RunRequest{Code: p.Code, Names: p.Names, TimeoutMs: p.Timeout.Milliseconds(), MaxOutputBytes: p.MaxOutputBytes, HeapHeadroom: p.HeapHeadroom}
	if err := rp.send(coderun.ToRunner{Run: req}); err != nil {
		return rp.exited(err), false
	}
	names := make(map[string]bool, len(p.Names))
	for _, n := range p.Names {
		names[n] = true
	}
	seen := map[uint64]bool{}
	wall := time.NewTimer(p.Timeout + stopGrace)
	defer wall.Stop()
	var grace <-chan time.Time
	done := ctx.Done()
	for {
		select {
		case batch, ok := <-rp.msgs:
			if !ok {
				if outOfMemory(rp.stderr.String()) {
					// The runner's memory cap (its heap headroom plus slack)
					// stopped an allocation the heap guard did not see.
					return coderun.Failed(KindWorkerExit, fmt.Sprintf("heap limit exceeded (%d MiB): an allocation went past the runner's memory cap", p.HeapHeadroom>>20)), heard
				}
				return rp.exited(nil), heard
			}
			heard = true
			// One batch is what the runner wrote at once: the calls of one
			// synchronous part of the program. They are dispatched in one
			// go, as an in-process host would see them.
			for _, m := range batch {
				switch {
				case m.Outcome != nil:
					kill = false
					o = checked(*m.Outcome)
					if ctx.Err() != nil && (o.Err == nil || o.Err.Kind != KindAbort) {
						// Aborted meanwhile: a call the cancellation settled
						// may have reached the program before the abort did.
						o = Outcome{Logs: o.Logs, Err: &RunError{Kind: KindAbort, Message: abortMessage(ctx)}}
					}
					return o, true
				case m.Call != nil:
					c := m.Call
					settle := rp.settler(c.ID)
					switch {
					case seen[c.ID] || c.ID == 0:
						return coderun.Failed(KindWorkerExit, fmt.Sprintf("the code runner broke the protocol: call number %d again", c.ID)), true
					case !names[c.Name] || !c.Args.IsValid():
						seen[c.ID] = true
						settle(jsonv.Value{}, "no tool named "+c.Name+" is callable here", false)
					default:
						seen[c.ID] = true
						p.Dispatch(c.Name, c.Args, settle)
					}
				case m.Yield:
					if p.Yield != nil {
						p.Yield()
					}
				}
			}
		case <-done:
			done = nil
			_ = rp.send(coderun.ToRunner{Abort: abortMessage(ctx)})
			grace = time.After(stopGrace)
		case <-grace:
			return coderun.Failed(KindAbort, abortMessage(ctx)), heard
		case <-wall.C:
			return coderun.Failed(KindTimeout, fmt.Sprintf("wall-clock ceiling reached (%dms)", p.Timeout.Milliseconds())), heard
		}
	}
}

// spare is one started runner waiting for a run (its start, esbuild's and
// goja's, is most of a short run's time): taken by the next run of the same
// path, and started again after each. The first run of a process starts
// its own, so a process that never runs a program never starts one.
var spare struct {
	sync.Mutex
	path string
	rp   *runnerProc
	wg   sync.WaitGroup // refills in flight
}

// takeRunner returns the spare if it is for path and alive (wasSpare),
// else starts a runner. The run starts the next spare when it is over (refill), so that
// the two do not compete for the CPU.
func takeRunner(path string) (rp *runnerProc, wasSpare bool, err error) {
	spare.Lock()
	rp = spare.rp
	if rp != nil && (spare.path != path || !rp.alive()) {
		rp.stop(true)
		rp = nil
	}
	spare.rp = nil
	spare.Unlock()
	if rp != nil {
		return rp, true, nil
	}
	rp, err = startRunner(path)
	return rp, false, err
}

// refill starts a spare for path in the background unless there is one.
func refill(path string) {
	spare.wg.Go(func() { fill(path) }) // owned by spare: StopSpare waits for it
}

// fill starts a spare for path unless there is one.
func fill(path string) {
	rp, err := startRunner(path)
	if err != nil {
		return // the run that needs one will say why
	}
	spare.Lock()
	defer spare.Unlock()
	if spare.rp != nil {
		rp.stop(true)
		return
	}
	spare.path, spare.rp = path, rp
}

// alive reports whether the runner has not ended: its reader closes msgs
// only once the process is gone, and sends nothing before a run.
func (rp *runnerProc) alive() bool {
	select {
	case _, ok := <-rp.msgs:
		return ok
	default:
		return true
	}
}

// outOfMemory reports whether a runner's stderr says it died for want of
// memory: the Go runtime's words, or the race detector's in a runner
// built with -race (its shadow memory counts against the cap too).
func outOfMemory(stderr string) bool {
	return strings.Contains(stderr, "fatal error: runtime: out of memory") || strings.Contains(stderr, "ThreadSanitizer failed to allocate")
}

// checked keeps an outcome's failure within the contract's kinds.
func checked(o Outcome) Outcome {
	if o.Err != nil {
		switch o.Err.Kind {
		case KindException, KindTimeout, KindAbort, KindWorkerExit, KindInvalidOutput, KindOutputLimit:
		default:
			o.Err = &RunError{Kind: KindWorkerExit, Message: "the code runner failed with an unknown kind: " + o.Err.Kind}
		}
	}
	return o
}

// runnerProc is one running dsh-code: the writer side (send, under wmu)
// and the reader goroutine, which owns the process's end: it reads until
// the runner's stdout ends, reaps the process and closes msgs.
type runnerProc struct {
	cmd    *exec.Cmd
	stderr *head

	wmu    sync.Mutex
	stdin  io.WriteCloser
	closed bool

	msgs    chan []coderun.FromRunner // closed after the process is reaped
	quit    chan struct{}             // closed by stop: msgs has no reader
	waitErr error                     // the process's end, set before msgs closes
	readErr error                     // why reading stopped, set before msgs closes
}

// runnerStarts counts startRunner calls (a test sees the spare's use).
var runnerStarts atomic.Int64

// startRunner starts path and waits for its protocol line.
func startRunner(path string) (*runnerProc, error) {
	runnerStarts.Add(1)
	cmd := exec.Command(path)
	// Dies with the bridge; its own process group, killed whole.
	cmd.SysProcAttr = helperbin.GroupAttr()
	cmd.Env = secrets.Clean(os.Environ())
	rp := &runnerProc{cmd: cmd, stderr: &head{}, msgs: make(chan []coderun.FromRunner), quit: make(chan struct{})}
	cmd.Stderr = rp.stderr
	stdin, stdout, err := helperbin.Start(cmd)
	if err != nil {
		return nil, err
	}
	rp.stdin = stdin
	hello := make(chan error, 1)
	go rp.read(stdout, hello)
	timer := time.NewTimer(handshakeTimeout)
	defer timer.Stop()
	select {
	case err = <-hello:
	case <-timer.C:
		err = errors.New("no protocol line in time")
	}
	if err != nil {
		rp.stop(true)
		return nil, err
	}
	return rp, nil
}

// read is the reader goroutine: the protocol line (answered on hello),
// then the messages. Started exactly once per process.
func (rp *runnerProc) read(stdout io.Reader, hello chan<- error) {
	defer close(rp.msgs)
	br := bufio.NewReaderSize(stdout, 64<<10)
	line, err := readLine(br, 1<<10)
	switch {
	case err != nil:
		hello <- fmt.Errorf("no protocol line: %w", err)
	case string(line) != coderun.ProtocolLine:
		hello <- fmt.Errorf("protocol line %q, want %q", line[:min(len(line), 80)], coderun.ProtocolLine)
	default:
		hello <- nil
		rp.readErr = rp.forward(br)
	}
	rp.kill()                      // a runner that broke the protocol, or one that is gone already
	_, _ = io.Copy(io.Discard, br) // the pipe ends when the process does
	rp.waitErr = rp.cmd.Wait()
}

// forward hands the messages to msgs, a batch per write of the runner's,
// until the output ends, is not the protocol, or nobody listens.
func (rp *runnerProc) forward(br *bufio.Reader) error {
	for {
		var batch []coderun.FromRunner
		for len(batch) == 0 || br.Buffered() > 0 {
			line, err := readLine(br, coderun.MaxLine)
			if err == io.EOF && len(batch) > 0 {
				break
			}
			if err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			var m coderun.FromRunner
			if err := json.Unmarshal(line, &m); err != nil {
				return fmt.Errorf("a line that is not the protocol's: %w", err)
			}
			batch = append(batch, m)
		}
		select {
		case rp.msgs <- batch:
		case <-rp.quit:
			return nil
		}
	}
}

// readLine reads one line without its newline, of at most limit bytes.
// A last line without a newline is an error.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var acc []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(acc)+len(frag) > limit+1 {
			return nil, fmt.Errorf("a line longer than %d bytes", limit)
		}
		switch {
		case err == nil && acc == nil:
			return frag[:len(frag)-1], nil
		case err == nil:
			return append(acc, frag[:len(frag)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			acc = append(acc, frag...)
		case err == io.EOF && len(acc)+len(frag) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// kill ends the runner's process group (the runner and anything it
// started).
func (rp *runnerProc) kill() {
	helperbin.KillGroup(rp.cmd.Process)
}

// send writes one message; an error once the runner's input is closed.
// A sub-call's result reaches the program with every secret value
// redacted: the program could otherwise turn it into a spelling the
// redaction of its own result does not know (reversed, split).
func (rp *runnerProc) send(m coderun.ToRunner) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if m.Settle != nil {
		b = secrets.RedactJSON(b)
	}
	rp.wmu.Lock()
	defer rp.wmu.Unlock()
	if rp.closed {
		return errors.New("the run is over")
	}
	_, err = rp.stdin.Write(append(b, '\n'))
	return err
}

// settler is the Settle of call id: its first call is sent to the runner.
func (rp *runnerProc) settler(id uint64) Settle {
	var once sync.Once
	return func(value jsonv.Value, errMsg string, ok bool) {
		once.Do(func() {
			m := &coderun.SettleMsg{ID: id, OK: ok, Error: errMsg}
			if ok {
				m.Value = value
				if !value.IsValid() {
					m.Value = jsonv.NullValue()
				}
			}
			_ = rp.send(coderun.ToRunner{Settle: m}) // late: the runner is gone
		})
	}
}

// stop ends the process (at once when kill, else after stopGrace) and
// waits until it is reaped. Called exactly once, by Run or startRunner.
func (rp *runnerProc) stop(kill bool) {
	close(rp.quit)
	rp.wmu.Lock()
	rp.closed = true
	_ = rp.stdin.Close()
	rp.wmu.Unlock()
	if kill {
		rp.kill()
	}
	timer := time.NewTimer(stopGrace)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-rp.msgs:
			if !ok {
				return
			}
		case <-timer.C:
			rp.kill()
		}
	}
}

// exited is the outcome of a runner that ended before its outcome: its
// exit status and the end of what it wrote to stderr. It waits for the
// process to be reaped.
func (rp *runnerProc) exited(err error) Outcome {
	for range rp.msgs {
	}
	why := "the code runner exited before the run ended"
	switch {
	case rp.readErr != nil:
		why = "the code runner broke the protocol (" + rp.readErr.Error() + ")"
	case rp.waitErr != nil:
		why += " (" + rp.waitErr.Error() + ")"
	case err != nil:
		why += " (" + err.Error() + ")"
	}
	if s := strings.TrimSpace(rp.stderr.String()); s != "" {
		why += ": " + s
	}
	return coderun.Failed(KindWorkerExit, why)
}

// head keeps the first stderrHead bytes written to it: a Go runtime's
// fatal error names its cause first, then dumps its goroutines.
type head struct {
	mu  sync.Mutex
	buf []byte
}

func (t *head) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p[:min(len(p), stderrHead-len(t.buf))]...)
	return len(p), nil
}

func (t *head) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
