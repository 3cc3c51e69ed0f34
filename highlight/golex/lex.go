package golex

import (
	"strings"
	"unicode/utf8"
)

// Token is one token of [Tokens]: its type and its bytes in the text,
// [Start, End).
type Token struct {
	Type       Type
	Start, End int
}

// Tokens tokenizes Go source as chroma's Go lexer, coalesced, does
// (lexers/go.go: the same rules, tried in the same order at each
// position, the same runs of one type merged), in a single pass without
// regular expressions: chroma's backtracking engine spends some 30 µs on
// a line, and most reads an agent makes in a Go workspace are of Go.
//
// It gives up (false) on text where matching chroma exactly would need
// more than those rules: a byte that is not ASCII outside comments,
// strings and character literals (chroma's \w, \s and \d are Unicode
// classes there), a carriage return anywhere (chroma reads each as a
// line end), another control character outside comments and literals,
// invalid UTF-8, a raw string with a
// template action ({{) or of 8 KB and more, and an interpreted string
// with no closing quote (chroma's match then backtracks). The caller then
// asks chroma itself. TestTokens_AsChroma holds the two together over the
// Go tree's sources.
func Tokens(text string) ([]Token, bool) {
	toks := make([]Token, 0, len(text)/4)
	if !Each(text, func(t Token) { toks = append(toks, t) }) {
		return nil, false
	}
	return toks, true
}

// Each is [Tokens] without the slice: it calls yield with each token in
// order, and reports whether the lexer took the whole text. When it did
// not, yield may have been called for some tokens before it gave up.
func Each(text string, yield func(Token)) bool {
	if !utf8.ValidString(text) || strings.IndexByte(text, '\r') >= 0 {
		return false // chroma reads every \r as \n, in any token
	}
	l := lexer{text: text, yield: yield}
	for l.pos < len(text) {
		if !l.next() {
			return false
		}
	}
	if l.held {
		yield(l.cur)
	}
	return true
}

type lexer struct {
	text  string
	pos   int
	yield func(Token)
	cur   Token // the last token, held until one of another type follows
	held  bool
	// unclosed, when above 0, is where a search for a block comment's
	// closer found none to the text's end: none starts there or after.
	unclosed int
	scanned  int // bytes block comment searches looked at (for tests)
}

// emit makes a token of n bytes at pos, merged into the one before it when
// that has the same type and is shorter than 8 KB (chroma.Coalesce).
func (l *lexer) emit(typ Type, n int) {
	if n == 0 {
		return
	}
	if l.held && l.cur.Type == typ && l.cur.End-l.cur.Start < 8192 {
		l.cur.End = l.pos + n
	} else {
		if l.held {
			l.yield(l.cur)
		}
		l.cur, l.held = Token{typ, l.pos, l.pos + n}, true
	}
	l.pos += n
}

// The classes of a token's first byte, by which next picks the rules to
// try.
const (
	classOther  = '0' + iota // operators, punctuation, quotes, '/', '.', errors
	classBad                 // refused: not ASCII, or a control character but \t and \n
	classSpace               // ' ', \t, \n
	classLetter              // a letter or _: a word
	classDigit
)

// classes is each byte's class, a digit per byte (a constant: nothing
// is built when the package initialises); TestClasses holds it to the
// classes' definitions.
const classes = "" +
	"1111111112211111" + // 00–0f
	"1111111111111111" + // 10–1f
	"2000000000000000" + // 20–2f
	"4444444444000000" + // 30–3f
	"0333333333333333" + // 40–4f
	"3333333333300003" + // 50–5f
	"0333333333333333" + // 60–6f
	"3333333333300001" + // 70–7f
	"1111111111111111" + // 80–8f
	"1111111111111111" + // 90–9f
	"1111111111111111" + // a0–af
	"1111111111111111" + // b0–bf
	"1111111111111111" + // c0–cf
	"1111111111111111" + // d0–df
	"1111111111111111" + // e0–ef
	"1111111111111111" // f0–ff

func isWord(c byte) bool { return classes[c] >= classLetter }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// at is the byte at i, or 0 past the end.
func (l *lexer) at(i int) byte {
	if i < len(l.text) {
		return l.text[i]
	}
	return 0
}

// wordLen is the length of the run of word bytes at i.
func (l *lexer) wordLen(i int) int {
	j := i
	for j < len(l.text) && isWord(l.text[j]) {
		j++
	}
	return j - i
}

// digits is the length of the run of digits at i.
func (l *lexer) digits(i int) int {
	j := i
	for j < len(l.text) && isDigit(l.text[j]) {
		j++
	}
	return j - i
}

// operator is the length of the operator rule's match at pos, 0 for none.
// The rule's alternatives, tried in its order (the first that matches
// wins, not the longest), are
//
//	<<= >>= << >> <= >= &^= &^ += -= *= /= %= &= |= && || <- ++ -- == != := ... + - * / % &
//
// here grouped by their first byte, each group in that order.
func (l *lexer) operator() int {
	p := l.pos
	c1, c2 := l.at(p+1), l.at(p+2)
	switch l.text[p] {
	case '<': // <<= << <= <-
		switch {
		case c1 == '<' && c2 == '=':
			return 3
		case c1 == '<' || c1 == '=' || c1 == '-':
			return 2
		}
	case '>': // >>= >> >=
		switch {
		case c1 == '>' && c2 == '=':
			return 3
		case c1 == '>' || c1 == '=':
			return 2
		}
	case '&': // &^= &^ &= && &
		switch {
		case c1 == '^' && c2 == '=':
			return 3
		case c1 == '^' || c1 == '=' || c1 == '&':
			return 2
		}
		return 1
	case '+', '-': // += ++ + (and -= -- -)
		if c1 == '=' || c1 == l.text[p] {
			return 2
		}
		return 1
	case '*', '/', '%': // *= * (and /= /, %= %)
		if c1 == '=' {
			return 2
		}
		return 1
	case '|': // |= ||
		if c1 == '=' || c1 == '|' {
			return 2
		}
	case '=', '!', ':': // == != :=
		if c1 == '=' {
			return 2
		}
	case '.': // ...
		if c1 == '.' && c2 == '.' {
			return 3
		}
	}
	return 0
}

// next reads one rule's match at pos, trying the rules in chroma's order.
// Which rules can match is decided by the first byte (a word's rules need
// a letter or _, the number rules a digit or '.', and so on), so a word,
// the commonest token, is read once and tried only against the word
// rules.
func (l *lexer) next() bool {
	t, p := l.text, l.pos
	c := t[p]
	switch classes[c] {
	case classBad:
		return false
	case classSpace: // \n, then \s+
		n := 1
		if c != '\n' {
			for p+n < len(t) && classes[t[p+n]] == classSpace {
				n++
			}
		}
		l.emit(TextWhitespace, n)
		return true
	case classLetter:
		return l.word(p)
	case classDigit:
		typ, n := l.number()
		l.emit(typ, n) // a digit is at least an integer
		return true
	}
	switch c {
	case '/':
		if c1 := l.at(p + 1); c1 == '/' {
			return l.lineComment()
		} else if c1 == '*' || c1 == '\\' && l.at(p+2) == '\n' && l.at(p+3) == '*' {
			if n := l.blockComment(); n > 0 {
				l.emit(CommentMultiline, n)
				return true
			}
		}
	case '.':
		if typ, n := l.number(); n > 0 {
			l.emit(typ, n)
			return true
		}
	case '\'':
		if n := l.char(); n > 0 {
			l.emit(LiteralStringChar, n)
			return true
		}
	case '`':
		return l.rawString()
	case '"':
		n, ok := l.str()
		if !ok {
			return false
		}
		l.emit(LiteralString, n)
		return true
	}
	if n := l.operator(); n > 0 {
		l.emit(Operator, n)
		return true
	}
	if strings.IndexByte("|^<>=!()[]{}.,;:~", c) >= 0 {
		l.emit(Punctuation, 1)
		return true
	}
	l.emit(Error, 1) // no rule matches: one character
	return true
}

// word reads the rules that match a word at p (whose first byte is a
// letter or _), in chroma's order: a keyword, a builtin called, a type,
// a function called (the word, white space, "("), any other name.
func (l *lexer) word(p int) bool {
	t := l.text
	w := l.wordLen(p)
	name := t[p : p+w]
	if c := name[0]; 'a' <= c && c <= 'z' { // every keyword, builtin and type
		if typ := keyword(name); typ != None {
			l.emit(typ, w)
			return true
		}
		switch {
		case builtinCall(name) && l.at(p+w) == '(':
			l.emit(NameBuiltin, w)
			l.emit(Punctuation, 1)
			return true
		case basicType(name):
			l.emit(KeywordType, w)
			return true
		}
	}
	s := p + w
	for s < len(t) && classes[t[s]] == classSpace {
		s++
	}
	if l.at(s) == '(' { // ([a-zA-Z_]\w*)(\s*)(\()
		l.emit(NameFunction, w)
		l.emit(TextWhitespace, s-p-w)
		l.emit(Punctuation, 1)
		return true
	}
	l.emit(NameOther, w)
	return true
}

// lineComment reads //… to the line's end: CommentPreproc when a
// character other than white space follows the slashes at once.
func (l *lexer) lineComment() bool {
	t, p := l.text, l.pos
	end := len(t) // the line's end (the text has no \r)
	if i := strings.IndexByte(t[p+2:], '\n'); i >= 0 {
		end = p + 2 + i
	}
	typ := CommentSingle
	switch c := l.at(p + 2); {
	case c >= 0x80 || c == '\v' || c == '\f':
		return false // \s is a Unicode class
	case end > p+2 && !isSpace(c):
		typ = CommentPreproc
	}
	l.emit(typ, end-p)
	return true
}

// blockComment is the length of /(\\\n)?[*](.|\n)*?[*](\\\n)?/ at pos,
// 0 when it is not closed.
//
// A text with no closer after some point is searched to its end once, not
// once per opener ("/*/*/*…" would cost its length squared): the model
// chooses what files hold, and this runs in the bridge.
func (l *lexer) blockComment() int {
	t, p := l.text, l.pos
	i := p + 2 // past "/*"
	if t[p+1] == '\\' {
		i = p + 4 // past "/\\\n*"
	}
	if l.unclosed > 0 && i >= l.unclosed {
		return 0
	}
	from := i
	defer func() { l.scanned += i - from }()
	for ; i < len(t); i++ {
		if t[i] != '*' {
			continue
		}
		if l.at(i+1) == '/' {
			return i + 2 - p
		}
		if l.at(i+1) == '\\' && l.at(i+2) == '\n' && l.at(i+3) == '/' {
			return i + 4 - p
		}
	}
	l.unclosed = from
	return 0
}

// number tries the number rules in order.
func (l *lexer) number() (Type, int) {
	t, p := l.text, l.pos
	d := l.digits(p)
	exp := func(i int, signRequired bool) int { // [Ee][-+]?\d+ at i: its length, or 0
		if c := l.at(i); c != 'e' && c != 'E' {
			return 0
		}
		j := i + 1
		if c := l.at(j); c == '+' || c == '-' {
			j++
		} else if signRequired {
			return 0
		}
		if n := l.digits(j); n > 0 {
			return j + n - i
		}
		return 0
	}
	imag := func(i int) int { // …i at i: the length from p, or 0
		if l.at(i) == 'i' {
			return i + 1 - p
		}
		return 0
	}
	if d > 0 { // \d+i
		if n := imag(p + d); n > 0 {
			return LiteralNumber, n
		}
	}
	if d > 0 && l.at(p+d) == '.' { // \d+\.\d*([Ee][-+]\d+)?i
		f := p + d + 1 + l.digits(p+d+1)
		if n := imag(f); n > 0 {
			return LiteralNumber, n
		}
		if e := exp(f, true); e > 0 {
			if n := imag(f + e); n > 0 {
				return LiteralNumber, n
			}
		}
	}
	if d == 0 && l.at(p) == '.' { // \.\d+([Ee][-+]\d+)?i
		if f := l.digits(p + 1); f > 0 {
			end := p + 1 + f
			if n := imag(end); n > 0 {
				return LiteralNumber, n
			}
			if e := exp(end, true); e > 0 {
				if n := imag(end + e); n > 0 {
					return LiteralNumber, n
				}
			}
		}
	}
	if d > 0 { // \d+[Ee][-+]\d+i
		if e := exp(p+d, true); e > 0 {
			if n := imag(p + d + e); n > 0 {
				return LiteralNumber, n
			}
		}
	}
	if d > 0 { // \d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)
		if l.at(p+d) == '.' {
			f := l.digits(p + d + 1)
			if f > 0 {
				if e := exp(p+d+1+f, false); e > 0 {
					return LiteralNumberFloat, d + 1 + f + e
				}
			}
			return LiteralNumberFloat, d + 1 + f
		}
		if e := exp(p+d, false); e > 0 {
			return LiteralNumberFloat, d + e
		}
	}
	if d == 0 && l.at(p) == '.' { // \.\d+([eE][+\-]?\d+)?
		if f := l.digits(p + 1); f > 0 {
			return LiteralNumberFloat, 1 + f + exp(p+1+f, false)
		}
	}
	if t[p] == '0' { // 0[0-7]+, 0[xX][0-9a-fA-F_]+, 0b[01_]+
		run := func(i int, ok func(byte) bool) int {
			j := i
			for j < len(t) && ok(t[j]) {
				j++
			}
			return j - i
		}
		if n := run(p+1, func(c byte) bool { return '0' <= c && c <= '7' }); n > 0 {
			return LiteralNumberOct, 1 + n
		}
		if c := l.at(p + 1); c == 'x' || c == 'X' {
			hex := func(c byte) bool {
				return c == '_' || isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
			}
			if n := run(p+2, hex); n > 0 {
				return LiteralNumberHex, 2 + n
			}
		}
		if l.at(p+1) == 'b' {
			if n := run(p+2, func(c byte) bool { return c == '0' || c == '1' || c == '_' }); n > 0 {
				return LiteralNumberBin, 2 + n
			}
		}
		return LiteralNumberInteger, 1 // (0|…)
	}
	if d > 0 { // [1-9][0-9_]*
		j := p + 1
		for j < len(t) && (isDigit(t[j]) || t[j] == '_') {
			j++
		}
		return LiteralNumberInteger, j - p
	}
	return None, 0
}

// char is the length of a character literal at pos, or 0:
// '(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'
func (l *lexer) char() int {
	t, p := l.text, l.pos
	closed := func(i int) int { // the length when a quote is at i
		if l.at(i) == '\'' {
			return i + 1 - p
		}
		return 0
	}
	hexRun := func(i, n int) bool {
		if i+n > len(t) {
			return false
		}
		for _, c := range []byte(t[i : i+n]) {
			if !(isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	if l.at(p+1) != '\\' {
		if p+1 >= len(t) {
			return 0
		}
		n := 1
		for p+1+n < len(t) && t[p+1+n]&0xC0 == 0x80 { // one character, however long
			n++
		}
		return closed(p + 1 + n)
	}
	e := l.at(p + 2)
	if strings.IndexByte(`'"\abfnrtv`, e) >= 0 && e != 0 {
		if n := closed(p + 3); n > 0 {
			return n
		}
	}
	if e == 'x' && hexRun(p+3, 2) {
		if n := closed(p + 5); n > 0 {
			return n
		}
	}
	oct := 0
	for oct < 3 && '0' <= l.at(p+2+oct) && l.at(p+2+oct) <= '7' {
		oct++
	}
	for ; oct > 0; oct-- {
		if n := closed(p + 2 + oct); n > 0 {
			return n
		}
	}
	if e == 'u' && hexRun(p+3, 4) {
		if n := closed(p + 7); n > 0 {
			return n
		}
	}
	if e == 'U' && hexRun(p+3, 8) {
		if n := closed(p + 11); n > 0 {
			return n
		}
	}
	return 0
}

// rawString reads `…` (a backquote alone is an error token): the
// backquotes and the text between them are one string, split where the
// template lexer that chroma hands the text to splits it (at each {).
func (l *lexer) rawString() bool {
	t, p := l.text, l.pos
	end := strings.IndexByte(t[p+1:], '`')
	if end < 0 {
		l.emit(Error, 1)
		return true
	}
	body := t[p+1 : p+1+end]
	if strings.Contains(body, "{{") || end+2 >= 8192 {
		return false
	}
	l.emit(LiteralString, 1)
	for body != "" {
		n := strings.IndexByte(body, '{')
		switch {
		case n == 0:
			n = 1
		case n < 0:
			n = len(body)
		}
		l.emit(LiteralString, n)
		body = body[n:]
	}
	l.emit(LiteralString, 1)
	return true
}

// str is the length of "(\\\\|\\"|[^"])*" at pos; false when no quote
// closes it.
func (l *lexer) str() (int, bool) {
	t, p := l.text, l.pos
	for i := p + 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			if c := l.at(i + 1); c == '\\' || c == '"' {
				i++
			}
		case '"':
			return i + 1 - p, true
		}
	}
	return 0, false
}
