// Command dsh-highlight is dsh-bridge's syntax highlighter: a helper the
// bridge starts on its first read card and talks to over stdin and stdout
// (package highlight documents the protocol). It keeps chroma, and its
// start-up cost, out of the bridge binary. It confines itself (Landlock:
// no files, no network) before it reads a request, and exits when its
// input ends.
//
// Install it next to dsh-bridge (go install ./cmd/...); without it, read
// cards come without syntax tokens.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/dsh-bridge/dsh-bridge/highlight/chromatok"
	"github.com/dsh-bridge/dsh-bridge/internal/confine"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "dsh-highlight takes no arguments: dsh-bridge starts it and speaks to it over stdin and stdout")
		os.Exit(2)
	}
	tune()
	if err := run(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dsh-highlight:", err)
		os.Exit(1)
	}
}

// tune sets the runtime's collector and parallelism for the helper, unless
// the environment sets them (GOGC, GOMAXPROCS).
func tune() {
	if os.Getenv("GOGC") == "" {
		// The helper's live heap is its lexers, and every request
		// allocates its tokens afresh: at the default 100 it would collect
		// after almost every request.
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// One request at a time. Tokens are decoration (see niceness):
		// a turn's reads may get theirs one after another, and a thread
		// per core costs more CPU per request in hand-offs and spinning.
		runtime.GOMAXPROCS(1)
	}
}

// run lowers this process's priority and confines it, then serves
// requests from r until r ends. A priority or a confinement the kernel
// refuses is reported on stderr, not fatal (Landlock is best effort).
func run(r io.Reader, w, stderr io.Writer) error {
	if err := yieldCPU(); err != nil {
		fmt.Fprintln(stderr, "dsh-highlight: priority not lowered:", err)
	}
	if err := confine.Process(); err != nil {
		fmt.Fprintln(stderr, "dsh-highlight: not confined:", err)
	}
	return chromatok.Serve(r, w, 0)
}

// niceness is the helper's scheduling niceness. Tokens are decoration that
// follow a result the editor already shows; under load they must not take
// the CPU from the calls users wait for.
const niceness = 10
