package highlight

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/batchwrite"
	"github.com/dsh-bridge/dsh-bridge/internal/helperbin"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
)

// handshakeTimeout bounds the helper's first line: a binary that is not
// the helper must not hang the first read.
const handshakeTimeout = 5 * time.Second

// proc is one running helper: the writer side (send, through out), the
// reader goroutine that dispatches answers to the waiting requests, and
// done, closed once the helper is unusable.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Closer
	log    *slog.Logger

	// out writes the requests to stdin from a goroutine of its own: the
	// requests of reads that finish together reach the helper in one
	// write, and wake it once.
	out       *batchwrite.Writer
	inputOnce sync.Once
	closing   atomic.Bool // Close asked the helper to end: its exit is no failure

	mu      sync.Mutex
	pending map[uint64]chan<- Answer
	err     error

	done     chan struct{} // closed by fail, exactly once
	failOnce sync.Once
	reaped   chan struct{} // closed when the reader has waited for the process
}

// start runs the helper and checks its protocol line.
func start(opt Options) (*proc, error) {
	cmd := exec.Command(opt.Path)
	cmd.Stderr = opt.Stderr
	cmd.SysProcAttr = helperbin.SysProcAttr()
	cmd.Env = secrets.Clean(os.Environ())
	stdin, stdout, err := helperbin.Start(cmd)
	if err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	hello := make(chan error, 1)
	go func() {
		line, err := r.ReadSlice('\n') // a line longer than the buffer is no protocol line
		switch {
		case err != nil:
			hello <- fmt.Errorf("no protocol line: %w", err)
		case string(line) != ProtocolLine+"\n":
			hello <- fmt.Errorf("protocol line %q, want %q", line[:min(len(line), 80)], ProtocolLine)
		default:
			hello <- nil
		}
	}()
	timer := time.NewTimer(handshakeTimeout)
	defer timer.Stop()
	select {
	case err = <-hello:
	case <-timer.C:
		_ = cmd.Process.Kill()
		_ = stdout.Close() // a child of the helper may hold the pipe open
		<-hello
		err = errors.New("no protocol line in time")
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = stdin.Close() // helperbin's pipe: Wait does not close it
		_ = cmd.Wait()
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, stdout: stdout, log: opt.Log, out: batchwrite.New(stdin), pending: map[uint64]chan<- Answer{}, done: make(chan struct{}), reaped: make(chan struct{})}
	go p.read(r)
	opt.Log.Debug("the highlighter started", "helper", opt.Path, "pid", cmd.Process.Pid)
	return p, nil
}

// read dispatches answers until the helper's output ends or breaks, then
// fails the helper and reaps it. It is the only reader of stdout.
func (p *proc) read(r *bufio.Reader) {
	defer close(p.reaped)
	for {
		a, err := ReadAnswer(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the helper exited")
			}
			p.fail(err)
			break
		}
		p.mu.Lock()
		ch := p.pending[a.ID]
		delete(p.pending, a.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- a // buffered, and registered once
		}
	}
	_ = p.cmd.Wait()
}

// register adds a waiting request; false once the helper has failed.
func (p *proc) register(id uint64, ch chan<- Answer) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return false
	}
	p.pending[id] = ch
	return true
}

func (p *proc) unregister(id uint64) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// send queues one request frame, written whole and in order. Its error is
// the first failed write's: a helper whose input broke is dead, and its
// reader says so too.
func (p *proc) send(frame []byte) error { return p.out.Write(frame) }

// closeInput writes the requests still queued, waiting up to wait, then
// closes the helper's input (a write the helper never takes ends with
// it). Its first call does this; later ones do nothing.
func (p *proc) closeInput(wait time.Duration) {
	p.inputOnce.Do(func() {
		p.out.Drain(wait)
		_ = p.stdin.Close()
	})
}

// fail marks the helper unusable (once), kills it and closes done; the
// requests still waiting see done.
func (p *proc) fail(err error) {
	p.failOnce.Do(func() {
		p.mu.Lock()
		p.err = err
		p.pending = nil
		p.mu.Unlock()
		if p.closing.Load() {
			p.log.Debug("the highlighter stopped", "err", err)
		} else {
			p.log.Warn("the highlighter stopped", "err", err)
		}
		_ = p.cmd.Process.Kill()
		_ = p.stdout.Close() // ends the reader even if a child holds the pipe
		p.closeInput(0)      // nobody reads the requests any more
		close(p.done)
	})
}

// stop ends the helper: its input closes (it exits at end of input), and
// after a grace period it is killed. It returns once the reader has reaped
// the process.
func (p *proc) stop() {
	p.closing.Store(true)
	p.closeInput(time.Second)
	select {
	case <-p.reaped:
	case <-time.After(time.Second):
		_ = p.cmd.Process.Kill()
		_ = p.stdout.Close()
		<-p.reaped
	}
	p.failOnce.Do(func() { close(p.done) })
}
