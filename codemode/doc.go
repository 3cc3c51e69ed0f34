// Package codemode is Code Mode (seed §Code Mode, contract §6): the
// run_code tool, its TypeScript SDK for the prompt, and the dispatch of a
// program's tools.<name> calls as nested calls through the pipeline.
//
// A program runs in dsh-code, Code Mode's runner: a process of its own per
// run (esbuild and goja, package jsvm), confined with Landlock, spoken to
// over the protocol of package coderun. The bridge links neither. A run
// ends with its logs and either a lossless JSON result or a RunError of
// one of the contract's kinds: exception (with the program's own line
// numbers), timeout, abort, invalid-output, output-limit, and worker-exit
// (the heap grew past its headroom, or the runner died or is missing).
package codemode
