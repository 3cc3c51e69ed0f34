package coderun

import "github.com/dsh-bridge/dsh-bridge/jsonv"

// ProtocolLine is the runner's first line: the protocol it speaks.
const ProtocolLine = "dsh-code 1"

// MaxLine bounds one protocol line either way (a call's arguments or a
// settled value can be a whole file).
const MaxLine = 256 << 20

// ToRunner is one line from the bridge: exactly one field is set.
type ToRunner struct {
	Run    *RunRequest `json:"run,omitempty"`
	Settle *SettleMsg  `json:"settle,omitempty"`
	// Abort stops the run: it ends with kind abort and this message.
	Abort string `json:"abort,omitempty"`
}

// RunRequest is a Program as it crosses the pipe.
type RunRequest struct {
	Code           string   `json:"code"`
	Names          []string `json:"names"`
	TimeoutMs      int64    `json:"timeoutMs"`
	MaxOutputBytes int      `json:"maxOutputBytes"`
	HeapHeadroom   uint64   `json:"heapHeadroom"`
}

// SettleMsg settles call ID: with Value when OK, else rejected with Error.
type SettleMsg struct {
	ID    uint64      `json:"id"`
	OK    bool        `json:"ok"`
	Value jsonv.Value `json:"value,omitzero"`
	Error string      `json:"error,omitempty"`
}

// FromRunner is one line from the runner: exactly one field is set.
type FromRunner struct {
	Call    *CallMsg `json:"call,omitempty"`
	Yield   bool     `json:"yield,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
}

// CallMsg is the program's call number ID of tools.<Name>(Args).
type CallMsg struct {
	ID   uint64      `json:"id"`
	Name string      `json:"name"`
	Args jsonv.Value `json:"args"`
}
