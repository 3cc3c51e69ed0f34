// Package codemode is Code Mode's runtime (seed §Code Mode, contract §6):
// a run_code program, TypeScript written as the body of an async function,
// is turned into JavaScript by esbuild and run by goja, in-process and in
// pure Go, in a fresh VM per run. The program's only way to the world is
// the tools object; console output is captured as logs.
//
// A run ends with its logs and either a lossless JSON result or a
// RunError of one of the contract's kinds: exception (with the program's
// own line numbers), timeout, abort, invalid-output, output-limit, and
// worker-exit (the heap grew past its headroom).
package codemode
