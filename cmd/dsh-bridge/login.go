package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/dsh-bridge/dsh-bridge/internal/credentials"
	"github.com/dsh-bridge/dsh-bridge/internal/secrets"
	"github.com/dsh-bridge/dsh-bridge/model"
)

// defaultBaseURL is the endpoint a key is for unless told otherwise.
const defaultBaseURL = "https://api.deepseek.com"

// loginCheckTimeout bounds login's GET /models.
const loginCheckTimeout = 30 * time.Second

// runLogin is `dsh-bridge login [--base-url URL] [--status]`, the ACP terminal auth
// method: it asks for a key (unechoed on a terminal; the first line of a
// pipe) and, unless --base-url gives it, a base URL (the next line;
// empty: the default), checks the key with the endpoint's GET /models,
// and stores it (credentials.Local). It exits 0 only when the key is
// stored. The key is never printed.
func runLogin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dsh-bridge login", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseFlag := fs.String("base-url", "", "the OpenAI-compatible endpoint the key is for (default "+defaultBaseURL+")")
	status := fs.Bool("status", false, "say where the key comes from (never the key) and exit: 0 when there is one")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dsh-bridge login: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *status {
		return keyStatus(stdout, stderr)
	}
	in := bufio.NewReader(stdin)
	// On a terminal the echo goes off before the prompt shows, so that a
	// key typed (or pasted) the moment the prompt appears is never echoed.
	restore := func() {}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r, err := echoOff(int(f.Fd()))
		if err != nil {
			fmt.Fprintln(stderr, "dsh-bridge login: cannot turn the terminal's echo off:", err)
			return 1
		}
		restore = r
	}
	fmt.Fprint(stdout, "API key (DeepSeek's, or another OpenAI-compatible endpoint's): ")
	line, err := in.ReadString('\n')
	restore()
	key := strings.TrimSpace(line)
	fmt.Fprintln(stdout)
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, "dsh-bridge login: reading the key:", err)
		return 1
	}
	if key == "" {
		fmt.Fprintln(stderr, "dsh-bridge login: no key given; nothing was stored")
		return 1
	}
	secrets.Remember(key)
	base := *baseFlag
	if base == "" {
		fmt.Fprintf(stdout, "Base URL (empty: %s): ", defaultBaseURL)
		line, _ := in.ReadString('\n')
		base = strings.TrimSpace(line)
		if !isTerminal(stdin) {
			fmt.Fprintln(stdout)
		}
	}
	if base == "" {
		base = defaultBaseURL
	}
	base = strings.TrimSuffix(base, "/")
	if u, err := url.Parse(base); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		fmt.Fprintf(stderr, "dsh-bridge login: %s is not an http(s) URL; nothing was stored\n", secrets.Redact(strconv.Quote(base)))
		return 1
	}
	fmt.Fprintf(stdout, "Checking the key with GET %s/models ...\n", secrets.Redact(base))
	if err := checkKey(base, key); err != nil {
		fmt.Fprintln(stderr, "dsh-bridge login: "+secrets.Redact(err.Error())+"; nothing was stored")
		return 1
	}
	c := credentials.Credential{APIKey: key}
	if base != defaultBaseURL {
		c.BaseURL = base
	}
	where, keychainErr, err := credentials.Local().Save(c)
	if keychainErr != nil {
		fmt.Fprintln(stderr, "dsh-bridge login: the keychain did not take the key ("+secrets.Redact(keychainErr.Error())+"); using the file instead")
	}
	if err != nil {
		fmt.Fprintln(stderr, "dsh-bridge login:", secrets.Redact(err.Error()))
		return 1
	}
	fmt.Fprintf(stdout, "Signed in: the key is stored in %s.\n", where)
	if v := firstSet(credentials.Names...); v != "" {
		fmt.Fprintf(stdout, "Note: %s is set in this environment, and wins over the stored key.\n", v)
	}
	return 0
}

// readKey reads the key: without echo from a terminal, else a line of in.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// checkKey asks base's GET /models with key; the error carries the
// endpoint's own words when it refuses.
func checkKey(base, key string) error {
	chat, err := model.NewChat(model.ChatConfig{BaseURL: base, APIKey: key, MaxRetries: -1})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), loginCheckTimeout)
	defer cancel()
	_, err = chat.Models(ctx)
	var ae *model.APIError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae) && ae.Transport:
		return fmt.Errorf("could not reach %s: %s", base, ae.Message)
	case errors.As(err, &ae):
		msg := ae.Message
		if msg == "" {
			msg = fmt.Sprint(ae.Status)
		}
		return fmt.Errorf("the endpoint refused the key (HTTP %d): %s", ae.Status, msg)
	}
	return err
}

// keyStatus says where the bridge would take its key from: a variable,
// the keychain or the file (credentials.Resolve).
func keyStatus(stdout, stderr io.Writer) int {
	_, src, err := credentials.Local().Resolve(os.Getenv)
	switch {
	case errors.Is(err, credentials.ErrNone):
		fmt.Fprintln(stdout, "No API key is set or stored: run dsh-bridge login, or set DSH_API_KEY.")
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "dsh-bridge login:", secrets.Redact(err.Error()))
		return 1
	}
	fmt.Fprintf(stdout, "The API key comes from %s.\n", src)
	return 0
}

// runLogout is `dsh-bridge logout`: it removes the stored key from the
// keychain and the file.
func runLogout(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "dsh-bridge logout: unexpected argument %q\n", args[0])
		return 2
	}
	gone, err := credentials.Local().Delete()
	for _, g := range gone {
		fmt.Fprintf(stdout, "Signed out: removed the key from %s.\n", g)
	}
	if err != nil {
		fmt.Fprintln(stderr, "dsh-bridge logout:", secrets.Redact(err.Error()))
		return 1
	}
	if len(gone) == 0 {
		fmt.Fprintln(stdout, "No key was stored.")
	}
	if v := firstSet(credentials.Names...); v != "" {
		fmt.Fprintf(stdout, "Note: %s is still set in this environment.\n", v)
	}
	return 0
}
