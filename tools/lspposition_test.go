package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/dsh-bridge/dsh-bridge/card"
)

// askedChecker is a Checker that records the questions it is asked.
type askedChecker struct{ asked []string }

func (c *askedChecker) Touch(string) {}
func (c *askedChecker) Changed(context.Context, string, string, bool) ([]card.Diagnostic, error) {
	return nil, nil
}
func (c *askedChecker) Open() []string         { return nil }
func (c *askedChecker) All() []card.Diagnostic { return nil }
func (c *askedChecker) Query(_ context.Context, op, _, _ string, line, col int, _ string) (string, error) {
	c.asked = append(c.asked, op)
	return "asked", nil
}

// TestLSP_PositionPastTheFile: a line past the file's lines (one past
// uint32's range among them) is a tool error, and the server is not
// asked; a line of the file is asked.
func TestLSP_PositionPastTheFile(t *testing.T) {
	chk := &askedChecker{}
	e := newEnv(t, LocalHost{}, func(o *Options) { o.Checker = chk })
	e.write("a.go", "a\nb\nc\n")
	for _, tc := range []struct {
		name, line string
		refused    bool
	}{
		{"past uint32", "4294967298", true},
		{"one past the last", "5", true},
		{"the last (empty)", "4", false},
		{"the first", "1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chk.asked = nil
			r := e.call("lsp", `{"operation":"hover","file_path":"a.go","line":`+tc.line+`,"column":1}`)
			if tc.refused {
				if !r.IsError || !strings.Contains(r.Error.Message, "past the end") || len(chk.asked) != 0 {
					t.Errorf("line %s: %q (error %v), asked %v; want a tool error and no question", tc.line, text(r), r.IsError, chk.asked)
				}
				return
			}
			if out := wantOK(t, r); out != "asked" || len(chk.asked) != 1 {
				t.Errorf("line %s: %q, asked %v; want the server asked", tc.line, out, chk.asked)
			}
		})
	}
}
