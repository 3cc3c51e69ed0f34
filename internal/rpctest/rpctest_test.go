package rpctest

import (
	"io"
	"strings"
	"testing"
)

func TestCaller(t *testing.T) {
	out := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`,
		`{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{}}`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`,
	}, "\n") + "\n"
	var sent strings.Builder
	c := New(strings.NewReader(out), &sent)
	if got := c.Call(t, 7, "x/y", `{"a":1}`); got != `{"jsonrpc":"2.0","id":7,"result":{"ok":true}}` {
		t.Errorf("answer %q", got)
	}
	if want := `{"jsonrpc":"2.0","id":7,"method":"x/y","params":{"a":1}}` + "\n"; sent.String() != want {
		t.Errorf("sent %q, want %q", sent.String(), want)
	}
	var _ io.Writer = &sent
}
