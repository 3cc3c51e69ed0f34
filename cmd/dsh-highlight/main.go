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
	"os"
	"runtime/debug"

	"github.com/dsh-bridge/dsh-bridge/highlight/chromatok"
	"github.com/dsh-bridge/dsh-bridge/internal/confine"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "dsh-highlight takes no arguments: dsh-bridge starts it and speaks to it over stdin and stdout")
		os.Exit(2)
	}
	if os.Getenv("GOGC") == "" {
		// The helper's live heap is a few MB of lexers, and every request
		// allocates its tokens afresh: at the default 100 it collects
		// after almost every request (6.0 ms of CPU per 100-line Go file
		// against 3.5 ms at 400; BENCHMARKS.md).
		debug.SetGCPercent(400)
	}
	if err := confine.Process(); err != nil {
		fmt.Fprintln(os.Stderr, "dsh-highlight: not confined:", err)
	}
	if err := chromatok.Serve(os.Stdin, os.Stdout, 0); err != nil {
		fmt.Fprintln(os.Stderr, "dsh-highlight:", err)
		os.Exit(1)
	}
}
