package codemode

import (
	"strings"

	"github.com/dsh-bridge/dsh-bridge/jsonv"
)

// indentStep is the pretty JSON indentation; maxIndent caps the total
// indentation (as JSON.stringify caps its space string): deeper levels
// are written compact, so the text stays linear in the value's size.
const (
	indentStep = "  "
	maxIndent  = 10
)

// renderResult is a program result as the model reads it: a string as it
// is, anything else as pretty JSON.
func renderResult(v jsonv.Value) string {
	if v.Kind() == jsonv.String {
		return v.Str()
	}
	var b strings.Builder
	pretty(&b, v, 0, false)
	return b.String()
}

func pretty(b *strings.Builder, v jsonv.Value, depth int, compact bool) {
	switch v.Kind() {
	case jsonv.Array, jsonv.Object:
	default:
		b.Write(v.AppendJSON(nil))
		return
	}
	open, close := byte('['), byte(']')
	if v.Kind() == jsonv.Object {
		open, close = '{', '}'
	}
	b.WriteByte(open)
	if v.Len() == 0 {
		b.WriteByte(close)
		return
	}
	compact = compact || (depth+1)*len(indentStep) > maxIndent
	for i := range v.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		if !compact {
			b.WriteString("\n" + strings.Repeat(indentStep, depth+1))
		}
		if v.Kind() == jsonv.Object {
			b.Write(jsonv.AppendString(nil, v.Key(i)))
			b.WriteByte(':')
			if !compact {
				b.WriteByte(' ')
			}
		}
		pretty(b, v.Index(i), depth+1, compact)
	}
	if !compact {
		b.WriteString("\n" + strings.Repeat(indentStep, depth))
	}
	b.WriteByte(close)
}
