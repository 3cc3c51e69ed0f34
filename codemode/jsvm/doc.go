// Package jsvm is Code Mode's JavaScript runtime: a run_code program,
// TypeScript written as the body of an async function, is turned into
// JavaScript by esbuild and run by goja, in pure Go, in a fresh VM per run.
// The program's only way to the world is the tools object; console output
// is captured as logs.
//
// Only dsh-code, Code Mode's runner, links this package (esbuild and goja
// are binary size and start-up that an editor session without Code Mode
// should not pay): Serve is its main loop, one run per
// process, over the protocol of package coderun.
package jsvm
