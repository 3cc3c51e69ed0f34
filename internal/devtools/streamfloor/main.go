// Command streamfloor is the least a Go client can do with a model's
// streamed answers: it posts the chat request on standard input to the URL
// in its first argument, as many times as its second says (default 1, one
// after another on one kept-alive connection), through net/http as
// dsh-bridge's model client does, and reads each answer's server-sent
// events line by line, doing nothing with them but counting the data lines
// (the total is printed on standard output, so that a benchmark can check
// the whole stream was read).
//
// The bridge's benchmarks run it, and curl (a native client), on the paced
// streams the bridge reads, to measure what the stream alone costs any
// client: the floor under the bridge's cost per call and per request.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "streamfloor:", err)
		os.Exit(1)
	}
}

// run posts the request read from stdin as args say (URL [COUNT]) and
// prints the number of data events the answers held to stdout.
func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: streamfloor URL [COUNT] < request.json")
	}
	count := 1
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Errorf("count %q: want a positive number", args[1])
		}
		count = n
	}
	body, err := io.ReadAll(stdin)
	if err != nil {
		return err
	}
	events := 0
	for range count {
		n, err := post(args[0], body)
		if err != nil {
			return err
		}
		events += n
	}
	_, err = fmt.Fprintln(stdout, events)
	return err
}

// post sends one request and reads its whole answer, returning the data
// lines it held.
func post(url string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("STREAMFLOOR_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %s", resp.Status)
	}
	br := bufio.NewReader(resp.Body)
	events, start := 0, true // start: the next bytes begin a line
	for {
		line, err := br.ReadSlice('\n')
		if start && bytes.HasPrefix(line, []byte("data: ")) {
			events++
		}
		start = err != bufio.ErrBufferFull
		switch {
		case err == io.EOF:
			return events, nil
		case err != nil && err != bufio.ErrBufferFull:
			return 0, err
		}
	}
}
