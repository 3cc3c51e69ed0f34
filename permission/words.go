package permission

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// lit returns a word's value with its quoting removed, and false when any
// part of it is expanded at run time ($x, $(…), $((…)), globs of extglob,
// and $"…", which bash translates through the message catalog that
// TEXTDOMAIN, TEXTDOMAINDIR and the locale name when it runs).
// Unquoted glob characters are kept: see hasMeta.
func lit(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 { // most words: their one part's value, nothing built
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			return unescape(p.Value), true
		case *syntax.SglQuoted:
			if !p.Dollar {
				return p.Value, true
			}
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if !p.Dollar {
				b.WriteString(p.Value)
				continue
			}
			v, ok := ansiC(p.Value)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// hasMeta reports whether a word's unquoted text holds a glob or a brace
// expansion, or starts with a tilde: its value is then decided by the
// shell (and the file system), not by the text.
func hasMeta(w *syntax.Word) bool {
	for i, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			continue
		}
		v := l.Value
		if i == 0 && strings.HasPrefix(v, "~") {
			return true
		}
		for j := 0; j < len(v); j++ {
			switch v[j] {
			case '\\':
				j++
			case '*', '?':
				return true
			case '[':
				if closes(w.Parts[i:], j+1) {
					return true
				}
			case '{':
				if strings.ContainsAny(v[j:], ",.") && strings.Contains(v[j:], "}") {
					return true
				}
			}
		}
	}
	return false
}

// closes reports whether a ] may follow the [ before offset j of the
// first of parts: a [ that nothing closes is a plain character ([ -f x ]).
func closes(parts []syntax.WordPart, j int) bool {
	if strings.Contains(parts[0].(*syntax.Lit).Value[j:], "]") {
		return true
	}
	for _, p := range parts[1:] {
		if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, "]") {
			return true
		}
	}
	return false
}

// joinLit joins words with spaces, as eval does, when all are literal.
func joinLit(ws []*syntax.Word) (string, bool) {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		v, ok := lit(w)
		if !ok {
			return "", false
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " "), true
}

// unescape removes unquoted backslashes (\r → r, \\ → \); a backslash
// before a newline joins lines.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that are special inside double
// quotes: before $, `, ", \ and a newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of $'…': \n, \t, \xHH, \NNN, \uHHHH, \cX and
// the rest; false for what it cannot decode. The value ends at its first
// NUL (\0, \x00, \c@, \u0000, …), as bash's does: $'rm\0zz' is rm.
func ansiC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i] & 0x1f)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			j := i + 1
			for j < len(s) && j < i+1+n && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:j], 16, 32)
			if err != nil {
				return "", false
			}
			if c == 'x' {
				b.WriteByte(byte(v))
			} else {
				if !utf8.ValidRune(rune(v)) {
					return "", false
				}
				b.WriteRune(rune(v))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	v, _, _ := strings.Cut(b.String(), "\x00")
	return v, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
