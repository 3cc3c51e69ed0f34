package coderun

import (
	"context"
	"errors"
	"time"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// The kinds of a failed run (contract §6 step 7).
const (
	KindException     = "exception"
	KindTimeout       = "timeout"
	KindAbort         = "abort"
	KindWorkerExit    = "worker-exit" // the runner died, or the program outgrew its heap
	KindInvalidOutput = "invalid-output"
	KindOutputLimit   = "output-limit"
)

// Defaults for a run's limits.
const (
	DefaultTimeout        = 120 * time.Second
	DefaultMaxOutputBytes = 1 << 20
	// DefaultHeapHeadroom is how much a run's heap may grow before the run
	// is stopped (worker-exit).
	DefaultHeapHeadroom = 1 << 30
)

// RunError is a failed run: one of the kinds above and its message.
type RunError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (e *RunError) Error() string { return "code run failed (" + e.Kind + "): " + e.Message }

// Outcome is what a run produced: the captured logs, then either a result
// (absent, the zero Value, when the program returned nothing) or an error.
type Outcome struct {
	Logs   []string    `json:"logs,omitempty"`
	Result jsonv.Value `json:"result,omitzero"`
	Err    *RunError   `json:"err,omitempty"`
}

// Failed is an outcome without logs that failed with kind and msg.
func Failed(kind, msg string) Outcome { return Outcome{Err: &RunError{Kind: kind, Message: msg}} }

// Settle ends one binding call: with a value (ok) or a rejection message.
// It may be called from any goroutine; only the first call counts.
type Settle func(value jsonv.Value, errMsg string, ok bool)

// Dispatch starts one binding call the program made, with its arguments
// already snapshotted as lossless JSON. It is called on one goroutine, in
// submission order, and must not block; settle is called exactly once,
// later or at once.
type Dispatch func(name string, args jsonv.Value, settle Settle)

// Program is one run: TypeScript that is the body of an async function
// (top-level await and return work), the names callable as tools.<name>,
// and the run's limits (zero means the default).
type Program struct {
	Code     string
	Names    []string
	Dispatch Dispatch
	// Yield, when set, is called each time the program hands control back
	// (its synchronous part, or a job, is done) while it has not settled:
	// the calls it made meanwhile may start (pipeline.Lane.Yield). It is
	// called on Dispatch's goroutine, after the Dispatch calls before it.
	Yield          func()
	Timeout        time.Duration
	MaxOutputBytes int
	// HeapHeadroom bounds the run's heap growth (DefaultHeapHeadroom).
	HeapHeadroom uint64
}

// WithDefaults returns p with its zero limits replaced by the defaults.
func (p Program) WithDefaults() Program {
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	if p.MaxOutputBytes <= 0 {
		p.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if p.HeapHeadroom == 0 {
		p.HeapHeadroom = DefaultHeapHeadroom
	}
	return p
}

// AbortMessage is why a run whose context ended was aborted: the cause,
// unless that is plain cancellation.
func AbortMessage(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return "the run was cancelled"
}
