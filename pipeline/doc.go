// Package pipeline executes tool calls: the seed's execution section
// (tools/pre-execute → guards → tools/execute → tools/post-execute →
// finalizeContent → tools/result) with the contract's stage order, error
// codes and cancellation rules, plus the agent loop's batch scheduler.
//
// # Stages
//
// [Pipeline.Execute] materializes the arguments once as lossless JSON, then
// runs the pre-execute waterfall ([PreListener]: allow, deny, or ask through
// the [Approver]; a [DetailedApprover] may grant part of a call, which its
// wrappers and body read with [ApprovalGrant]), the monotonic [Guard]s, the around-dispatch [Wrapper]s
// with the tool body at their base, the post-execute waterfall
// ([PostListener]), the tool's FinalizeContent (exactly once, on every
// path), and the result [Observer]s. Failures before dispatch that the
// contract calls final (unmaterializable or invalid arguments, a pre-aborted
// call, a failing listener, guard, approver or wrapper) skip post-execute;
// denials, cancellation after policy, tool failures and unknown tools pass
// through it. Unknown tools go through the whole pipeline, so policies see
// every name.
//
// Nothing a tool or policy does escapes as a Go error or a panic: every
// outcome is a [registry.Result], a success or a failure whose content is
// "Error: <message>". A *registry.Error contributes its name and code as
// the failure's info; plain errors and denials carry none.
//
// # Cancellation
//
// The caller's context plays the seed's AbortSignal. Cancellation before the
// body starts gives ABORTED_BEFORE_DISPATCH ("tool call aborted before
// dispatch"); a successful outcome overtaken by cancellation becomes ABORTED
// ("tool call aborted"), keeping its additional contexts; failures that
// settle after cancellation keep their own error. The body receives a
// context fused from the wrapper's context and the caller's, so a wrapper
// can add a deadline but never detach the caller's cancellation. A started
// body is always awaited, never abandoned. In Go a body reports its own
// cancellation by returning ctx.Err(); when the call's context is indeed
// done, that is reported as ABORTED rather than as the bare "context
// canceled" text.
//
// # Deliberate differences from the reference
//
//   - Tools whose parameters come from the DSL or the typed path (Tool.Args
//     set) have their arguments validated before the pre-execute waterfall:
//     an invalid call is a final INVALID_ARGS result that still reaches
//     FinalizeContent and the observers, and nobody is ever asked to
//     approve a call that cannot run.
//   - A wrapper that fails makes the whole call a final result even when an
//     enclosing wrapper handles the failure result it receives from next
//     (Go has no exceptions to catch).
//
// # Code Mode
//
// Code Mode (package codemode) reaches the pipeline in two places: a
// model-direct call of a tool its scope sees only through run_code is
// refused before any stage runs (the collapse rule, registry.Collapsed),
// and a program's nested calls run through a [Lane] with Call.Parent set,
// through every stage like any other call.
//
// # Scheduling
//
// [Pipeline.ExecuteBatch] runs one model turn's calls: consecutive
// parallel-safe calls form a rolling pool bounded by MaxParallel, each
// exclusive call is a barrier, classification happens just before a call
// starts, only dispatch and the body overlap, and pre-execute, approvals,
// post-execute and commits happen in model order on the caller's goroutine.
//
// [TimeoutPolicy] is the cooperative timeout wrapper.
package pipeline
