// Command dsh-markdown turns the HTML of a page web_fetch fetched into
// Markdown: dsh-bridge starts it for each HTML page, writes the page to
// its stdin and reads the Markdown from its stdout (package tools,
// webmd.go). It keeps the HTML parser and converter, and their package
// initialisation (x/net/html's entity table), out of the bridge binary, which starts for every editor session
// and every command it supervises; and it parses pages from the web, which
// anyone may have written, in a process that can reach nothing: it
// confines itself (Landlock: no files, no network) before it reads the
// page, and its memory is capped.
//
// Install it next to dsh-bridge (go install ./cmd/...); without it,
// web_fetch returns a page's HTML as it came.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"

	"github.com/dsh-bridge/dsh-bridge/internal/confine"
)

// maxInput bounds the page read from stdin; the bridge sends at most 5 MiB.
const maxInput = 8 << 20

// maxMemory caps the process's data segment (RLIMIT_DATA): a page built to
// blow the parser up ends this process, not the bridge.
const maxMemory = 1 << 30

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "dsh-markdown takes no arguments: dsh-bridge writes a page's HTML to its stdin and reads Markdown from its stdout")
		os.Exit(2)
	}
	if err := run(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dsh-markdown:", err)
		os.Exit(1)
	}
}

// run caps this process's memory and confines it, then converts the page
// on r to w. A cap or a confinement the kernel refuses is reported on
// stderr, not fatal (Landlock is best effort).
func run(r io.Reader, w, stderr io.Writer) error {
	if err := capMemory(); err != nil {
		fmt.Fprintln(stderr, "dsh-markdown: memory not capped:", err)
	}
	if err := confine.Process(); err != nil {
		fmt.Fprintln(stderr, "dsh-markdown: not confined:", err)
	}
	return convert(r, w)
}

// convert reads one HTML document from r (maxInput bytes at most) and
// writes its Markdown to w.
func convert(r io.Reader, w io.Writer) error {
	page, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return fmt.Errorf("reading the page: %w", err)
	}
	if len(page) > maxInput {
		return fmt.Errorf("the page is over %d bytes", maxInput)
	}
	md, err := htmltomarkdown.ConvertString(string(page))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64*1024)
	bw.WriteString(md)
	return bw.Flush()
}
