package highlight

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dsh-bridge/dsh-bridge/internal/proctest"

	"go.uber.org/goleak"
)

// helperBin is the real dsh-highlight, built once for the package's tests.
var helperBin string

func TestMain(m *testing.M) {
	runFake()
	proctest.MainWithHelper(m, "../cmd/dsh-highlight", "dsh-highlight", func(bin string) { helperBin = bin })
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// pid is the running helper's; the test fails when there is none (a
// signal to pid 0 would reach the test's whole process group).
func pid(t *testing.T, c *Client) int {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc == nil || c.proc.cmd.Process == nil || c.proc.cmd.Process.Pid <= 0 {
		t.Fatal("no helper is running")
	}
	return c.proc.cmd.Process.Pid
}

// touchHelperSources opens the helper's sources inside a test: the helper
// is built with go build, which the test cache cannot see, and files a
// test opens are part of its cache key.
func touchHelperSources(t *testing.T) {
	for _, dir := range []string{"../cmd/dsh-highlight", "chromatok"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if _, err := os.ReadFile(f); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestClient(t *testing.T) {
	touchHelperSources(t)
	ctx := context.Background()
	goLines := []string{"package main", "", "func main() { println(`a", "b`) }"}
	pyLines := []string{"def main():", "", "    print('''a", "b''')"}

	t.Run("tokens from the real helper", func(t *testing.T) {
		c := New(Options{Path: helperBin, Log: quiet})
		defer c.Close()
		ts, err := c.Tokens(ctx, "/w/main.go", "", goLines)
		if err != nil || len(ts) != 4 {
			t.Fatalf("Tokens = %+v, %v", ts, err)
		}
		if ts[0][0] != (Span{0, 7, "KeywordNamespace"}) || ts[1] != nil || !strings.HasPrefix(ts[3][0].Type, "LiteralString") {
			t.Errorf("spans %+v", ts)
		}
		if ts, err := c.Tokens(ctx, "/w/x.ts", "", []string{"const x: number = 1"}); err != nil || !strings.HasPrefix(ts[0][0].Type, "Keyword") {
			t.Errorf("TypeScript: %+v %v", ts, err)
		}
		if ts, err := c.Tokens(ctx, "", "python", []string{"def f(): pass"}); err != nil || ts[0][0].Type != "Keyword" {
			t.Errorf("hint: %+v %v", ts, err)
		}
		// Go with a non-ASCII name: chroma's lexer takes it too.
		if ts, err := c.Tokens(ctx, "/w/pi.go", "", []string{"var π = 3"}); err != nil || len(ts) != 1 || ts[0][0] != (Span{0, 3, "KeywordDeclaration"}) {
			t.Errorf("Go for chroma: %+v %v", ts, err)
		}
	})

	t.Run("Go is the helper's, as every language", func(t *testing.T) {
		c := New(Options{Path: helperBin, Log: quiet})
		defer c.Close()
		for _, tc := range []struct{ name, path, lang string }{
			{"by path", "/w/main.go", ""},
			{"by hint", "/w/main", "go"},
			{"by another hint", "/w/go.mod", "Golang"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ts, err := c.Tokens(ctx, tc.path, tc.lang, goLines)
				if err != nil || len(ts) != 4 || ts[0][0] != (Span{0, 7, "KeywordNamespace"}) || ts[1] != nil || ts[3][0].Type != "LiteralString" {
					t.Fatalf("Tokens = %+v, %v", ts, err)
				}
			})
		}
		if pid(t, c) == 0 {
			t.Error("no helper was asked for Go")
		}
		none := New(Options{Path: filepath.Join(t.TempDir(), "none"), Log: quiet})
		defer none.Close()
		if ts, err := none.Tokens(ctx, "/w/main.go", "", goLines); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Go with no helper: %+v, %v; want ErrUnavailable", ts, err)
		}
	})

	t.Run("packed tokens are the helper's spans, packed", func(t *testing.T) {
		c := New(Options{Path: helperBin, Log: quiet})
		defer c.Close()
		for _, tc := range []struct {
			path  string
			lines []string
		}{{"/w/main.go", goLines}, {"/w/main.py", pyLines}} {
			ts, err := c.Tokens(ctx, tc.path, "", tc.lines)
			if err != nil {
				t.Fatal(err)
			}
			p, err := c.PackedTokens(ctx, tc.path, "", tc.lines)
			if err != nil || !bytes.Equal(p, Pack(ts)) {
				t.Errorf("%s: %s, %v; packed spans %s", tc.path, p, err, Pack(ts))
			}
		}
		if p, err := c.PackedTokens(ctx, "/w/notes.txt", "", []string{"hello"}); p != nil || err != nil {
			t.Errorf("plain text: %s %v", p, err)
		}
	})

	t.Run("unknown languages and the cache answer without the helper", func(t *testing.T) {
		c := New(Options{Path: helperBin, Log: quiet})
		if ts, err := c.Tokens(ctx, "/w/notes.txt", "", []string{"hello"}); ts != nil || err != nil {
			t.Fatalf("plain text: %+v %v", ts, err)
		}
		want, err := c.Tokens(ctx, "/w/main.py", "", pyLines)
		if err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		c.opt.Path = "" // from here on, asking the helper fails
		c.proc.stop()
		c.proc = nil
		c.mu.Unlock()
		if ts, err := c.Tokens(ctx, "/w/sub/notes.txt", "", []string{"hello"}); ts != nil || err != nil {
			t.Errorf("a file of the same name asked again: %+v %v", ts, err)
		}
		if _, err := c.Tokens(ctx, "/w/CMakeLists.txt", "", []string{"project(x)"}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("another name of the same extension was not asked: %v", err)
		}
		if got, err := c.Tokens(ctx, "/w/main.py", "", pyLines); err != nil || len(got) != len(want) || got[0][0] != want[0][0] {
			t.Errorf("cached: %+v %v", got, err)
		}
		changed := append([]string{"def other():"}, pyLines[1:]...)
		if _, err := c.Tokens(ctx, "/w/main.py", "", changed); !errors.Is(err, ErrUnavailable) {
			t.Errorf("changed text served from the cache: %v", err)
		}
		c.Close()
	})

	t.Run("a killed helper is started again", func(t *testing.T) {
		// Nothing of the killed helper's is left running (its request
		// writer included), nor of the second once the client is closed.
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
		c := New(Options{Path: helperBin, Log: quiet})
		defer c.Close()
		if _, err := c.Tokens(ctx, "/w/a.py", "", []string{"a = 1"}); err != nil {
			t.Fatal(err)
		}
		first := pid(t, c)
		if p, err := os.FindProcess(first); err != nil || p.Kill() != nil {
			t.Fatalf("killing the helper %d: %v", first, err)
		}
		c.mu.Lock()
		done := c.proc.done
		c.mu.Unlock()
		<-done
		if ts, err := c.Tokens(ctx, "/w/b.py", "", []string{"b = 1"}); err != nil || len(ts) != 1 {
			t.Fatalf("after the kill: %+v %v", ts, err)
		}
		if second := pid(t, c); second == first || second == 0 {
			t.Errorf("pid %d, then %d", first, second)
		}
	})

	t.Run("helpers that break the protocol", func(t *testing.T) {
		for _, name := range []string{"missing", "wrong protocol line", "exits at once", "garbage answer", "overlapping spans", "span starting past the limit"} {
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "none")
				if name != "missing" {
					path = fake(t, name)
				}
				fds := openFDs(t)
				c := New(Options{Path: path, Log: quiet})
				defer func() {
					c.Close()
					if n := openFDs(t); n > fds {
						t.Errorf("%d descriptors open after the failed helpers, %d before: the pipes leak", n, fds)
					}
				}()
				// Each request a new text: one that broke a helper is
				// not sent again (the next test).
				for i := range maxStartFailures + 1 {
					if ts, err := c.Tokens(ctx, "/w/a.py", "", []string{fmt.Sprintf("a%d = 1", i)}); !errors.Is(err, ErrUnavailable) || ts != nil {
						t.Fatalf("got %+v, %v; want ErrUnavailable", ts, err)
					}
					// A helper that broke is reaped by its reader after
					// the request has failed, and the next request
					// replaces it without waiting: its descriptors
					// (the pidfd) are counted once it is reaped.
					c.mu.Lock()
					p := c.proc
					c.mu.Unlock()
					if p != nil {
						<-p.reaped
					}
				}
			})
		}
	})

	t.Run("an endless first line is refused at once", func(t *testing.T) {
		c := New(Options{Path: fake(t, "an endless first line"), Log: quiet})
		defer c.Close()
		start := time.Now()
		if _, err := c.Tokens(ctx, "/w/a.py", "", []string{"a = 1"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err %v", err)
		}
		if d := time.Since(start); d > handshakeTimeout/2 {
			t.Errorf("refused after %v: it waited for the handshake's timeout", d)
		}
	})

	t.Run("a text that brings the helper down is not sent again", func(t *testing.T) {
		starts := filepath.Join(t.TempDir(), "starts")
		t.Setenv(fakeStartsVar, starts)
		c := New(Options{Path: fake(t, "crashes on a text"), Log: quiet})
		defer c.Close()
		count := func() int {
			b, _ := os.ReadFile(starts)
			return strings.Count(string(b), "start")
		}
		if _, err := c.Tokens(ctx, "/w/a.py", "", []string{"crash = 1"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("first: %v", err)
		}
		if ts, err := c.Tokens(ctx, "/w/a.py", "", []string{"crash = 1"}); ts != nil || err != nil || count() != 1 {
			t.Errorf("again: %+v %v, %d starts (want no new start)", ts, err, count())
		}
		if _, err := c.Tokens(ctx, "/w/a.py", "", []string{"other = 1"}); !errors.Is(err, ErrUnavailable) || count() != 2 {
			t.Errorf("another text: %v, %d starts (want a restart)", err, count())
		}
	})

	t.Run("a helper that does not answer is killed at the timeout", func(t *testing.T) {
		c := New(Options{Path: fake(t, "never answers"), Log: quiet, Timeout: 200 * time.Millisecond})
		defer c.Close()
		start := time.Now()
		if _, err := c.Tokens(ctx, "/w/a.py", "", []string{"a = 1"}); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
		c.mu.Lock()
		p := c.proc
		c.mu.Unlock()
		select {
		case <-p.reaped:
		case <-time.After(5 * time.Second):
			t.Fatal("the helper was not killed")
		}
	})

	t.Run("a cancelled request returns at once", func(t *testing.T) {
		c := New(Options{Path: fake(t, "never answers"), Log: quiet})
		defer c.Close()
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := c.Tokens(cctx, "/w/a.py", "", []string{"a = 1"}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err %v", err)
		}
	})

	t.Run("the helper is looked up once, at the first request", func(t *testing.T) {
		lookups := 0
		c := New(Options{Lookup: func() string { lookups++; return helperBin }, Log: quiet})
		defer c.Close()
		if lookups != 0 {
			t.Fatal("looked up before any request")
		}
		for range 2 {
			if ts, err := c.Tokens(ctx, "/w/a.py", "", []string{"a = 1"}); err != nil || len(ts) != 1 {
				t.Fatalf("Tokens = %+v, %v", ts, err)
			}
		}
		if lookups != 1 {
			t.Errorf("%d lookups", lookups)
		}
	})

	t.Run("closed", func(t *testing.T) {
		c := New(Options{Path: helperBin, Log: quiet})
		c.Close()
		if _, err := c.Tokens(ctx, "/w/a.py", "", []string{"a = 1"}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("err %v", err)
		}
	})
}

func TestLocate(t *testing.T) {
	dir, temp := t.TempDir(), t.TempDir()
	exe := "dsh-highlight"
	if runtime.GOOS == "windows" {
		exe += ".exe" // found as dsh-highlight through %PATHEXT%
	}
	onPath := filepath.Join(dir, exe)
	if err := os.WriteFile(onPath, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", temp) // dir is not in the temp folder
	t.Setenv("TMP", temp)    // nor on Windows
	t.Setenv("TEMP", temp)
	t.Setenv("PATH", dir)
	t.Run("PATH", func(t *testing.T) {
		os.Unsetenv("DSH_HIGHLIGHTER")
		if got := Locate(); got != onPath {
			t.Errorf("Locate() = %q, want %q", got, onPath)
		}
	})
	t.Run("not from the temp folder on PATH, which commands may write", func(t *testing.T) {
		os.Unsetenv("DSH_HIGHLIGHTER")
		planted := filepath.Join(temp, exe)
		if err := os.WriteFile(planted, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", temp+string(os.PathListSeparator)+dir)
		if got := Locate(); got != onPath {
			t.Errorf("Locate() = %q, want %q", got, onPath)
		}
	})
	t.Run("DSH_HIGHLIGHTER", func(t *testing.T) {
		t.Setenv("DSH_HIGHLIGHTER", "/opt/x/dsh-highlight")
		if got := Locate(); got != "/opt/x/dsh-highlight" {
			t.Errorf("Locate() = %q", got)
		}
		t.Setenv("DSH_HIGHLIGHTER", "off")
		if got := Locate(); got != "" {
			t.Errorf("off: Locate() = %q", got)
		}
	})
}

func TestFenceLanguage(t *testing.T) {
	for _, tc := range []struct{ path, lang, want string }{
		{"/w/a.go", "", "go"},
		{"/w/A.PY", "", "python"},
		{"/w/Makefile", "", "makefile"},
		{"/w/notes.zzz", "", ""},
		{"/w/x", "TypeScript", "typescript"},
		{"/w/x", "c++", "c++"},
		{"/w/x.go", "a`b", ""}, // a hint that could break the fence
	} {
		if got := FenceLanguage(tc.path, tc.lang); got != tc.want {
			t.Errorf("FenceLanguage(%q, %q) = %q, want %q", tc.path, tc.lang, got, tc.want)
		}
	}
}
