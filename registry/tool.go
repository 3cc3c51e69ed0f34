package registry

import (
	"context"
	"slices"
	"time"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// Tool is a tool definition (the seed's ToolDefinition): the model-facing
// Name, Description and Parameters, plus host-only fields that never reach
// a model request ([Registry.Schemas] projects only the first three).
//
// The registry keeps its own copy at [Registry.Register]; a *Tool returned
// by [Registry.Get] is that copy and must not be modified.
type Tool struct {
	// Name is the model-facing name: 1 to 64 of [A-Za-z0-9_-].
	Name        string
	Description string
	// Parameters is the model-facing JSON Schema of the arguments, kept as
	// given: raw (MCP-style) definitions are not checked against the subset
	// and validate their own input.
	Parameters jsonv.Value
	// Args, when set, is the compiled parameter schema that the pipeline
	// enforces before any policy runs (INVALID_ARGS). The DSL and typed
	// paths set it; raw definitions leave it nil.
	Args *Schema

	// Output is the required canonical output contract.
	Output Output

	// Execute runs one accepted call and returns only the canonical value,
	// which must satisfy Output.Schema. It must honour ctx and return only
	// once its work has stopped. An error becomes a failed result; a *Error
	// contributes its Name and Code.
	Execute func(ctx context.Context, args jsonv.Value, run RunContext) (jsonv.Value, error)

	// FinalizeContent, when set, is called exactly once for every outcome of
	// a call (failures that skip post-execute included) and may replace only
	// the content: it returns the new blocks and true, or false to keep.
	FinalizeContent func(exec Execution, r Result) ([]card.Content, bool)

	// Timeout is the cooperative deadline the timeout policy arms; 0 means
	// none. Never sent to the model.
	Timeout time.Duration

	// IsConcurrencySafe reports whether a call may overlap its siblings.
	// Only true opts in; nil, false and a panic are exclusive.
	IsConcurrencySafe func(args jsonv.Value) bool

	// Accesses, when set, reports the files a call would read or write, as
	// the arguments name them (host-only, pure). Permission policies use it
	// to ask before a call touches anything outside the workspace.
	Accesses func(args jsonv.Value) []Access

	// Effect classifies what the tool does, for permission modes (host-only).
	Effect Effect

	// Subject, when set, is what permission rules such as bash(git *) or
	// web_fetch(domain:example.com) match a call against: the command of a
	// shell tool, "domain:<host>" of a fetch. File tools are matched by
	// their Accesses instead.
	Subject func(args jsonv.Value) string

	// Escalation, when set, returns why a call asks for more than the
	// session's sandbox gives (for example a command to run unsandboxed),
	// or "". Such a call is always asked about, in every mode, and no
	// "always" answer or allow rule covers it.
	Escalation func(args jsonv.Value) string

	// PresentCall and PresentResult are pure presenters: they depend only on
	// their arguments, because session replay calls them again from the log.
	// A nil view means the generic fallback.
	PresentCall   func(args jsonv.Value) card.CallView
	PresentResult func(args jsonv.Value, r ToolResult) card.ResultView

	// PreviewCall, when set, is the pending card of a live call: unlike
	// PresentCall it may look at what the call would change (an edit's
	// file, read through the tool's judged host), so it is never used to
	// replay a log. A nil view, or a panic, falls back to PresentCall.
	PreviewCall func(ctx context.Context, args jsonv.Value) card.CallView

	out *Schema // Output.Schema, compiled at registration (or by Define, while Output.Schema is still its raw)
}

// Effect is the kind of side effect a tool has.
type Effect uint8

// Effects. EffectUnknown tools are treated as the most dangerous class by
// permission modes.
const (
	EffectUnknown Effect = iota
	EffectRead           // reads or searches, no side effects
	EffectEdit           // creates or changes files
	EffectExecute        // runs commands
	EffectFetch          // talks to the network
	// EffectTransport tools only call other tools, each of which is judged
	// on its own (run_code): they have no effect of their own.
	EffectTransport
)

// Access is one file or directory a call would touch.
type Access struct {
	Path  string // as the arguments name it: absolute, or relative to the workspace
	Write bool   // the call would create or change it
}

// Output is a tool's canonical output contract.
type Output struct {
	// Schema is the raw schema (enforced subset) every successful value
	// must satisfy.
	Schema jsonv.Value
	// Render is the pure projection of arguments and value to model content.
	Render func(args, value jsonv.Value) ([]card.Content, error)
	// PresentationMeta is the optional pure, replayable presentation
	// projection, computed only for top-level calls.
	PresentationMeta func(args, value jsonv.Value) (jsonv.Value, error)
}

// OutputSchema returns the compiled output schema of a registered tool (nil
// for a Tool that was never registered).
func (t *Tool) OutputSchema() *Schema { return t.out }

// ToolSchema is the model-facing projection of a tool.
type ToolSchema struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Parameters  jsonv.Value `json:"parameters"`
}

// Token is an opaque execution identity, compared with ==. The zero Token
// means "none" (a call without a parent).
type Token struct{ p *byte }

// NewToken mints a fresh, unique Token.
func NewToken() Token { return Token{new(byte)} }

// IsZero reports whether t is the zero Token.
func (t Token) IsZero() bool { return t.p == nil }

// Execution is one call's immutable identity as every stage sees it. It is
// passed by value: no stage can change what another stage sees.
type Execution struct {
	CallID     string
	RootCallID string // the model-requested call owning this tree; CallID for roots
	Name       string
	// Arguments are the materialized arguments; absent when the call's
	// arguments were not lossless JSON.
	Arguments jsonv.Value
	Scope     *Scope // the calling agent's scope; nil for agent-less calls
	Parent    Token  // the enclosing transport execution (Code Mode); zero for model-direct calls
	Token     Token  // this execution's identity, shared by all its stages
}

// RunContext is what a tool body receives besides its arguments.
type RunContext interface {
	// Execution returns the call's identity.
	Execution() Execution
	// DeferContext attaches a context message to this call's own result;
	// contexts keep their order and are emitted after the result.
	DeferContext(m ContextMessage)
	// ConcludeTurn marks a successful result as ending the agent's turn.
	ConcludeTurn()
}

// ContextMessage is a user-role message a tool or policy attaches for the
// model's next request (the seed's additionalContexts / deferContext).
type ContextMessage struct {
	Content []card.Content `json:"content"`
	// Source names who minted it (for example a plugin); may be empty.
	Source string `json:"source,omitempty"`
}

// ErrorInfo is a failure's machine identity.
type ErrorInfo struct {
	Name string `json:"name"`
	Code string `json:"code"`
}

// Failure is a failed result's error: the message without the "Error: "
// envelope, and info when the error was structured (*Error).
type Failure struct {
	Message string     `json:"message"`
	Info    *ErrorInfo `json:"info,omitempty"`
}

// Result is one call's outcome: a success {Value, Content, Meta?,
// AdditionalContexts?, ConcludesTurn?} or a failure {Error, Content, Meta?,
// AdditionalContexts?}. A failure never carries a Value or ConcludesTurn.
//
// Results handed out by the pipeline are private copies: changing one
// changes nobody else's.
type Result struct {
	IsError            bool
	Value              jsonv.Value // success only; never durable
	Content            []card.Content
	Error              *Failure // failure only
	Meta               jsonv.Value
	AdditionalContexts []ContextMessage
	ConcludesTurn      bool // success only
}

// Clone returns a copy of r that shares no mutable memory with it.
func (r Result) Clone() Result {
	r.Content = slices.Clone(r.Content)
	if r.Error != nil {
		e := *r.Error
		if e.Info != nil {
			info := *e.Info
			e.Info = &info
		}
		r.Error = &e
	}
	if r.AdditionalContexts != nil {
		ctxs := make([]ContextMessage, len(r.AdditionalContexts))
		for i, c := range r.AdditionalContexts {
			ctxs[i] = ContextMessage{Content: slices.Clone(c.Content), Source: c.Source}
		}
		r.AdditionalContexts = ctxs
	}
	return r
}

// ToolResult is the durable projection of a result that presenters see.
type ToolResult struct {
	Content []card.Content
	IsError bool
	Meta    jsonv.Value // the persisted presentation meta; absent for nested calls
}

// Mode is a scheduling mode: whether a call may overlap its siblings.
type Mode uint8

// Scheduling modes.
const (
	Exclusive Mode = iota // runs alone and is an ordering barrier
	Parallel              // may overlap with neighbouring parallel calls
)

func (m Mode) String() string {
	if m == Parallel {
		return "parallel"
	}
	return "exclusive"
}

// Presentation is how a scope's tools are presented to its model.
type Presentation string

// Presentation modes.
const (
	Native Presentation = "native" // every visible schema
	Code   Presentation = "code"   // only run_code (Code Mode)
	Both   Presentation = "both"   // native schemas plus run_code
)

// RunCodeName is the reserved Code Mode transport tool name.
const RunCodeName = "run_code"
