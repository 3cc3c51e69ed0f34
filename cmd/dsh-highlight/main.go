// Command dsh-highlight is dsh-bridge's syntax highlighter: a helper the
// bridge starts on its first read card and talks to over stdin and stdout
// (package highlight documents the protocol). It keeps chroma, and its
// start-up cost, out of the bridge binary. It exits when its input ends.
//
// Install it next to dsh-bridge (go install ./cmd/...); without it, read
// cards come without syntax tokens.
package main

import (
	"fmt"
	"os"

	"github.com/dsh-bridge/dsh-bridge/highlight/chromatok"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "dsh-highlight takes no arguments: dsh-bridge starts it and speaks to it over stdin and stdout")
		os.Exit(2)
	}
	if err := chromatok.Serve(os.Stdin, os.Stdout, 0); err != nil {
		fmt.Fprintln(os.Stderr, "dsh-highlight:", err)
		os.Exit(1)
	}
}
