package pipeline

import (
	"context"

	"github.com/dsh-bridge/dsh-bridge/card"
	"github.com/dsh-bridge/dsh-bridge/jsonv"
	"github.com/dsh-bridge/dsh-bridge/registry"
)

// Call is one tool call to execute. The context passed with it plays the
// seed's caller-owned AbortSignal.
type Call struct {
	CallID     string
	RootCallID string // the model-requested call owning this tree; defaults to CallID
	Name       string
	// Arguments are the model's raw JSON arguments. Empty (or blank) means
	// {}. Ignored when Args is valid.
	Arguments []byte
	// Args are already-materialized arguments (nested dispatch).
	Args   jsonv.Value
	Scope  *registry.Scope // the calling agent; nil for agent-less calls
	Parent registry.Token  // the enclosing transport execution; zero for model-direct calls
}

// PreKind is the kind of a pre-execute decision.
type PreKind uint8

// Pre-execute decision kinds.
const (
	Allow PreKind = iota
	Deny
	Ask
)

// PreDecision is what a pre-execute listener decides: allow, deny with a
// reason, or ask (with an optional reason) before running. Arguments cannot
// be rewritten: they are already logged and presented.
//
// Data is what the deciding listener wants to travel with the call: an
// ask hands it to the approver (ApprovalRequest.Data), and an allowed
// call — asked or not — carries it in the context of its wrappers and
// body ([DecisionData]). The pipeline never reads it.
type PreDecision struct {
	Kind   PreKind
	Reason string
	Data   any
}

// AllowCall, DenyCall and AskCall build decisions.
func AllowCall() PreDecision             { return PreDecision{Kind: Allow} }
func DenyCall(reason string) PreDecision { return PreDecision{Kind: Deny, Reason: reason} }
func AskCall(reason string) PreDecision  { return PreDecision{Kind: Ask, Reason: reason} }

// PreListener is one link of the tools/pre-execute waterfall. It returns
// its own decision or delegates with next; the end of the chain allows. An
// error or a panic ends the call with a final failed result. Listeners must
// honour ctx; the pipeline rechecks cancellation after they return.
type PreListener func(ctx context.Context, exec registry.Execution, next func() (PreDecision, error)) (PreDecision, error)

// Guard is a monotonic final check after the pre-execute waterfall: a
// non-empty reason denies the call; there is no way to allow, so no
// ordering can lift another guard's denial. A panic ends the call with a
// final failed result.
type Guard func(exec registry.Execution) (denyReason string)

// Wrapper is one link of the tools/execute around-dispatch waterfall (for
// timeouts, retries, metrics). It may call next with a replacement context
// (timeouts do); the pipeline fuses the caller's cancellation back into it
// before the body runs. next always returns a normalized result, never a
// panic. A wrapper's successful result counts only through its value, which
// the owning tool re-validates and re-renders. An error or panic ends the
// call with a final failed result.
type Wrapper func(ctx context.Context, exec registry.Execution, next func(context.Context) registry.Result) (registry.Result, error)

// PostDecision is what a post-execute listener decides. The zero value
// accepts the result unchanged.
type PostDecision struct {
	// Block turns the result into a failure whose content is Feedback.
	Block    bool
	Feedback []card.Content
	// ReplaceContent replaces only the content (value, meta and error stay).
	ReplaceContent bool
	Content        []card.Content
	// ReplaceValue replaces the value of a success; content and meta are
	// recomputed by the owning tool. An absent Value still counts.
	ReplaceValue bool
	Value        jsonv.Value
	// AdditionalContexts are appended to the result's (accept) or become
	// its only contexts (block).
	AdditionalContexts []registry.ContextMessage
}

// Accept, AcceptContent, AcceptValue and Block build post decisions.
func Accept() PostDecision { return PostDecision{} }
func AcceptContent(c []card.Content) PostDecision {
	return PostDecision{ReplaceContent: true, Content: c}
}
func AcceptValue(v jsonv.Value) PostDecision { return PostDecision{ReplaceValue: true, Value: v} }
func Block(feedback []card.Content) PostDecision {
	return PostDecision{Block: true, Feedback: feedback}
}

// PostListener is one link of the tools/post-execute waterfall; the end of
// the chain accepts. It receives its own copy of the result. An error or a
// panic turns the result into that failure.
type PostListener func(ctx context.Context, exec registry.Execution, r registry.Result, next func() (PostDecision, error)) (PostDecision, error)

// Observer receives every final result (the seed's tools/result), as its
// own copy of exactly what the caller gets. A panic is contained and logged.
type Observer func(exec registry.Execution, r registry.Result)

// ApprovalOutcome is how an approval request ended.
type ApprovalOutcome uint8

// Approval outcomes.
const (
	AllowedOnce ApprovalOutcome = iota + 1
	Rejected
	Cancelled
	Unavailable
)

// ApprovalRequest asks a person whether a call may run.
type ApprovalRequest struct {
	Exec     registry.Execution
	ToolName string
	CallID   string
	Reason   string // the asking listener's reason; may be empty
	Data     any    // the asking decision's Data
}

// Approver resolves an ask. RequestApproval blocks until a decision or ctx
// is done, and must return Cancelled when ctx is done first.
type Approver interface {
	RequestApproval(ctx context.Context, req ApprovalRequest) ApprovalOutcome
}

// Approval is an answer that says more than its outcome: what the person
// granted of an allowed call (Grant, carried to the call's wrappers and
// body, [ApprovalGrant]; the asking decision's Data travels as well), or
// why a call is refused (Reason, replacing the rejection's default text).
type Approval struct {
	Outcome ApprovalOutcome
	Grant   any    // AllowedOnce only; nil grants the call as asked
	Reason  string // Rejected only; empty means the default text
}

// A DetailedApprover is an Approver that can answer with an [Approval].
// When the pipeline's approver is one, the pipeline asks through
// RequestApprovalDetail, with RequestApproval's contract, instead.
type DetailedApprover interface {
	Approver
	RequestApprovalDetail(ctx context.Context, req ApprovalRequest) Approval
}

// State is a call's progress through a batch.
type State uint8

// Call states, reported in this order (AwaitingApproval and Running only
// when they happen).
const (
	Queued State = iota
	AwaitingApproval
	Running
	Finished
)

func (s State) String() string {
	return [...]string{"queued", "awaiting_approval", "running", "finished"}[s]
}
