package jsonv

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// quoteReference is AppendString written the plain way, one byte at a
// time: the fast version must write exactly what it writes.
func quoteReference(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

func TestAppendString(t *testing.T) {
	long := strings.Repeat("plain ascii text", 8)
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", `""`},
		{"plain run longer than a word", long, `"` + long + `"`},
		{"escapes at every position of a word", "a\"b\\c\nd\te\rf\bg\fh\x00i\x1fj\x7f", `"a\"b\\c\nd\te\rf\bg\fh\u0000i\u001fj` + "\x7f\""},
		{"quote after seven plain bytes", "1234567\"", `"1234567\""`},
		{"backslash as the eighth byte of the second word", "12345678123456\\8", `"12345678123456\\8"`},
		{"control byte at the end of a word", "1234567\x01tail", `"1234567\u0001tail"`},
		{"multi-byte runes kept", "é漢字😀 and more plain text", `"é漢字😀 and more plain text"`},
		{"invalid UTF-8 replaced", "12345678\xff\xfe1234", `"12345678\ufffd\ufffd1234"`},
		{"truncated rune at the end", "abcdefgh\xe6\xbc", `"abcdefgh\ufffd\ufffd"`},
		{"html and line separators as they are", "<a&b>\u2028", "\"<a&b>\u2028\""},
		{"0x20 and 0x7e are plain", " ~ ~ ~ ~ ~ ~ ~ ~", `" ~ ~ ~ ~ ~ ~ ~ ~"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(AppendString([]byte("prefix:"), tc.in))
			if got != "prefix:"+tc.want {
				t.Fatalf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
			}
			if ref := quoteReference(tc.in); ref != tc.want {
				t.Fatalf("the reference writes %s, want %s", ref, tc.want)
			}
			var back string
			if err := json.Unmarshal([]byte(tc.want), &back); err != nil || (utf8.ValidString(tc.in) && back != tc.in) {
				t.Fatalf("%s decodes to %q (%v), want %q", tc.want, back, err, tc.in)
			}
		})
	}
}

// FuzzAppendString checks the word-at-a-time encoder against the plain
// one, for any bytes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "tab\there\nand \"quotes\" \\", "\x00\x1f\x7f\x80", "é漢字😀", "\xff\xfe", "12345678\"2345678\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString(nil, s)), quoteReference(s); got != want {
			t.Fatalf("AppendString(%q) = %s, the plain encoder writes %s", s, got, want)
		}
	})
}

// benchWindows is 64 windows of 100 lines of a real Go file (net/http's
// server.go), each a list of its lines: what read results carry. The
// benchmarks take a window of their own each iteration, so that they time
// text the branch predictor has not learnt.
func benchWindows(b *testing.B) [][]string {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(src), "\n")
	out := make([][]string, 64)
	for i := range out {
		from := (i * 53) % (len(lines) - 100)
		out[i] = lines[from : from+100]
	}
	return out
}

// BenchmarkAppendString encodes a 100-line window as one string, what a
// read result's text is.
func BenchmarkAppendString(b *testing.B) {
	var texts []string
	size := 0
	for _, w := range benchWindows(b) {
		texts = append(texts, strings.Join(w, ""))
		size += len(texts[len(texts)-1])
	}
	b.SetBytes(int64(size / len(texts)))
	buf := make([]byte, 0, 4*size/len(texts))
	i := 0
	for b.Loop() {
		buf = AppendString(buf[:0], texts[i%len(texts)])
		i++
	}
}

// BenchmarkAppendLines encodes a window line by line into one buffer, as
// a read card's lines are.
func BenchmarkAppendLines(b *testing.B) {
	windows := benchWindows(b)
	buf := make([]byte, 0, 64<<10)
	i := 0
	for b.Loop() {
		buf = buf[:0]
		for _, l := range windows[i%len(windows)] {
			buf = AppendString(buf, l)
		}
		i++
	}
}
