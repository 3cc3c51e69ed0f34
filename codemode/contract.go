package codemode

import (
	"github.com/dsh-bridge/dsh-bridge/codemode/coderun"
)

// The contract of one run lives in package coderun (shared with the
// runner); these are its names here.
type (
	Program  = coderun.Program
	Outcome  = coderun.Outcome
	RunError = coderun.RunError
	Settle   = coderun.Settle
)

// The kinds of a failed run (contract §6 step 7).
const (
	KindException     = coderun.KindException
	KindTimeout       = coderun.KindTimeout
	KindAbort         = coderun.KindAbort
	KindWorkerExit    = coderun.KindWorkerExit
	KindInvalidOutput = coderun.KindInvalidOutput
	KindOutputLimit   = coderun.KindOutputLimit
)

// Defaults for a run's limits.
const (
	DefaultTimeout        = coderun.DefaultTimeout
	DefaultMaxOutputBytes = coderun.DefaultMaxOutputBytes
)

var abortMessage = coderun.AbortMessage
