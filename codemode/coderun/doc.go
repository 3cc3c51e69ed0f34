// Package coderun is what the bridge and Code Mode's runner (dsh-code)
// share about one run_code run: the program and its bindings, the outcome
// and the contract's failure kinds, and the runner protocol.
//
// The runner protocol is newline-delimited JSON over the runner's stdin and
// stdout, one process per run. The runner first writes ProtocolLine. The
// bridge then sends one Run message; the runner answers with Call messages
// (one per tools.<name> call, numbered from 1), a Yield message each time
// the program hands control back unsettled, and exactly one Outcome
// message, after which it exits. Meanwhile the bridge sends Settle messages
// (one per call, in any order) and at most one Abort message. Values are
// lossless JSON (package jsonv) both ways.
//
// The package links neither goja nor esbuild: the bridge imports it.
package coderun
