package highlight

import (
	"io"
	"os"
	"testing"
	"time"
)

// fakeVar names, in a fake helper's environment, how it misbehaves (a key
// of fakes); fakeStartsVar a file it notes each start in.
const (
	fakeVar       = "DSH_FAKE_HIGHLIGHT"
	fakeStartsVar = "DSH_FAKE_HIGHLIGHT_STARTS"
)

// handshake is the helper's first line.
const handshake = "dsh-highlight 1\n"

// fakes are the helpers that misbehave, run as this test binary (fake):
// Go rather than shell scripts, so that they run on Windows too.
var fakes = map[string]func(){
	"wrong protocol line": func() { os.Stdout.WriteString("dsh-highlight 2\n"); drain() },
	"exits at once":       func() { os.Exit(3) },
	"garbage answer":      func() { answer([]byte{1, 9}); drain() },
	"overlapping spans":   func() { answer([]byte{1, 0, 1, 1, 'k', 1, 2, 0, 5, 0, 2, 1, 0}); drain() },
	"span starting past the limit": func() {
		answer([]byte{1, 0, 1, 1, 'k', 1, 1, 0o200, 0o200, 0o200, 0o200, 0o200, 0o40, 1, 0})
		drain()
	},
	"an endless first line": func() { os.Stdout.Write(make200k()); time.Sleep(time.Minute) },
	"crashes on a text": func() {
		f, err := os.OpenFile(os.Getenv(fakeStartsVar), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.WriteString("start\n")
			f.Close()
		}
		answer(nil)
		os.Exit(1)
	},
	"never answers": func() { os.Stdout.WriteString(handshake); time.Sleep(time.Minute) },
}

// runFake runs the fake helper this process was started as, if any, and
// exits.
func runFake() {
	name := os.Getenv(fakeVar)
	if name == "" {
		return
	}
	fn := fakes[name]
	if fn == nil {
		os.Exit(2)
	}
	fn()
	os.Exit(0)
}

// fake is the path of a helper that misbehaves as fakes[name] does: this
// test binary, told which by its environment (t.Setenv: the tests that
// use it are not parallel).
func fake(t *testing.T, name string) string {
	t.Helper()
	if fakes[name] == nil {
		t.Fatalf("no fake helper %q", name)
	}
	t.Setenv(fakeVar, name)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// answer writes the handshake, reads the first byte of a request and
// writes b.
func answer(b []byte) {
	os.Stdout.WriteString(handshake)
	io.ReadFull(os.Stdin, make([]byte, 1))
	os.Stdout.Write(b)
}

func drain() { io.Copy(io.Discard, os.Stdin) }

func make200k() []byte {
	b := make([]byte, 200000)
	for i := range b {
		b[i] = 'a'
	}
	return b
}
