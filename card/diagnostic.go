package card

import (
	"strconv"
	"strings"
)

// Diagnostic is one problem a language server reports in a file. Line
// and Column are 1-based; Column counts characters, as read's numbered
// lines do.
type Diagnostic struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"` // one of the Severity constants
	Message  string `json:"message"`
	Source   string `json:"source,omitempty"` // the server's name for the checker ("compiler", "Pyright")
	Code     string `json:"code,omitempty"`
}

// The severities of a Diagnostic (LSP's four).
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "information"
	SeverityHint    = "hint"
)

// String is the compact form `path:line:col: severity: message`, the
// message on one line.
func (d Diagnostic) String() string {
	msg := strings.Join(strings.Fields(d.Message), " ")
	return d.Path + ":" + strconv.Itoa(d.Line) + ":" + strconv.Itoa(d.Column) + ": " + d.Severity + ": " + msg
}

// Problems are the errors and warnings of ds, in their order.
func Problems(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		if d.Severity == SeverityError || d.Severity == SeverityWarning {
			out = append(out, d)
		}
	}
	return out
}

// DiagnosticsText is ds in the compact form, one a line, capped at max
// entries and maxBytes bytes (a last line says how many more there are).
func DiagnosticsText(ds []Diagnostic, max, maxBytes int) string {
	var b strings.Builder
	for i, d := range ds {
		line := d.String()
		if i >= max || b.Len()+len(line)+1 > maxBytes {
			b.WriteString("… and " + strconv.Itoa(len(ds)-i) + " more")
			return b.String()
		}
		b.WriteString(line)
		if i < len(ds)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
