package secrets

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
)

// reset forgets every remembered value for the rest of t.
func reset(t *testing.T) {
	t.Helper()
	old := current.Load()
	current.Store(nil)
	t.Cleanup(func() { current.Store(old) })
}

func TestEnv_DropsKeysAndScrubbed(t *testing.T) {
	env := []string{"PATH=/bin", "DSH_API_KEY=sk-1", "DEEPSEEK_API_KEY=sk-2", "OPENAI_API_KEY=sk-3", "AWS_SECRET=x", "HOME=/h", "AWS_SECRET_2=y"}
	got := Env(env, []string{"AWS_SECRET"})
	want := []string{"PATH=/bin", "HOME=/h", "AWS_SECRET_2=y"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(env) != 7 {
		t.Errorf("env was changed: %v", env)
	}
}

func TestRedact_Values(t *testing.T) {
	reset(t)
	Remember("sk-0123456789abcdef", "short", "", "sk-0123456789abcdef") // short and empty are ignored, duplicates once
	RememberEnv([]string{"DSH_API_KEY=sk-fromtheenvironment", "TOKEN=tok-abcdefgh", "OTHER=notasecretvalue"}, []string{"TOKEN"})
	for _, tc := range []struct{ name, in, want string }{
		{"the flag's key", "key=sk-0123456789abcdef!", "key=[redacted]!"},
		{"twice", "sk-0123456789abcdefsk-0123456789abcdef", "[redacted][redacted]"},
		{"the environment's key", "DSH_API_KEY=sk-fromtheenvironment", "DSH_API_KEY=[redacted]"},
		{"a scrubbed variable", "tok-abcdefgh", "[redacted]"},
		{"a variable not scrubbed", "notasecretvalue", "notasecretvalue"},
		{"a short value is not redacted", "short", "short"},
		{"one byte less than the key", "sk-0123456789abcde", "sk-0123456789abcde"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRedact_PrefixValues: when one secret starts another, the longer is
// redacted whole, whichever was remembered first, in plain text, in a
// log writer and in JSON: no tail of it stays visible.
func TestRedact_PrefixValues(t *testing.T) {
	const short, long = "tok-abcdefgh", "tok-abcdefgh-0123456789"
	for _, order := range [][]string{{short, long}, {long, short}} {
		t.Run("remembered "+order[0]+" first", func(t *testing.T) {
			reset(t)
			for _, v := range order {
				Remember(v)
			}
			in := "a=" + long + " b=" + short + "."
			want := "a=[redacted] b=[redacted]."
			if got := Redact(in); got != want {
				t.Errorf("Redact: %q, want %q", got, want)
			}
			var w strings.Builder
			Writer(&w).Write([]byte(in))
			if w.String() != want {
				t.Errorf("Writer: %q, want %q", w.String(), want)
			}
			if got := string(RedactJSON([]byte(`{"a":"` + long + `","b":"` + short + `"}`))); got != `{"a":"[redacted]","b":"[redacted]"}` {
				t.Errorf("RedactJSON: %s", got)
			}
		})
	}
}

func TestRemember_MinLen(t *testing.T) {
	reset(t)
	Remember("1234567", "12345678")
	if got := Redact("1234567 12345678"); got != "1234567 [redacted]" {
		t.Errorf("got %q, want the 8-byte value redacted and the 7-byte one kept", got)
	}
}

func TestRedactJSON_StaysValid(t *testing.T) {
	reset(t)
	Remember("sk-0123456789abcdef", `quo"te\and<tag>`, "12345678")
	for _, tc := range []struct{ name, in, want string }{
		{"nothing to redact is the same slice", `{"a":"b"}`, `{"a":"b"}`},
		{"inside a string", `{"text":"the key sk-0123456789abcdef here"}`, `{"text":"the key [redacted] here"}`},
		{"as a key", `{"sk-0123456789abcdef":1}`, `{"[redacted]":1}`},
		{"escaped as JSON spells it", `{"t":"quo\"te\\and<tag>"}`, `{"t":"[redacted]"}`},
		{"escaped as encoding/json spells it", `{"t":"quo\"te\\and\u003ctag\u003e"}`, `{"t":"[redacted]"}`},
		{"a number is never touched", `{"n":12345678,"s":"12345678"}`, `{"n":12345678,"s":"[redacted]"}`},
		{"after an escaped quote", `{"t":"\"sk-0123456789abcdef\""}`, `{"t":"\"[redacted]\""}`},
		{"two lines", "{\"a\":\"sk-0123456789abcdef\"}\n{\"b\":12345678}\n", "{\"a\":\"[redacted]\"}\n{\"b\":12345678}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(RedactJSON([]byte(tc.in)))
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			for _, line := range splitLines(got) {
				if !json.Valid([]byte(line)) {
					t.Errorf("not valid JSON: %s", line)
				}
			}
		})
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func FuzzRedactJSON(f *testing.F) {
	f.Add(`{"a":"sk-0123456789abcdef","n":12345678}`)
	f.Add(`["\\\"sk-0123456789abcdef\\",12345678]`)
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		old := current.Load()
		current.Store(nil)
		defer current.Store(old)
		Remember("sk-0123456789abcdef", "12345678")
		out := RedactJSON([]byte(s))
		if !json.Valid(out) {
			t.Fatalf("RedactJSON(%s) = %s: not valid JSON", s, out)
		}
	})
}

func TestClean_DropsEveryScrubbedName(t *testing.T) {
	reset(t)
	env := []string{"PATH=/bin", "DSH_API_KEY=sk-1", "AWS_SECRET=x", "GH_TOKEN=y", "HOME=/h"}
	if got, want := Clean(env), []string{"PATH=/bin", "AWS_SECRET=x", "GH_TOKEN=y", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("before any settings: got %v, want %v", got, want)
	}
	RememberEnv(env, []string{"AWS_SECRET"})
	RememberEnv(nil, []string{"GH_TOKEN"}) // a second session's settings
	if got, want := Clean(env), []string{"PATH=/bin", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Redact("x y"); got != "x y" {
		t.Errorf("a short value was redacted: %q", got)
	}
}

func TestWriter_Redacts(t *testing.T) {
	reset(t)
	Remember("sk-0123456789abcdef")
	var b strings.Builder
	w := Writer(&b)
	for _, s := range []string{"level=ERROR err=\"401 for sk-0123456789abcdef\"\n", "plain\n"} {
		if n, err := io.WriteString(w, s); err != nil || n != len(s) {
			t.Fatalf("wrote %d, %v; want %d", n, err, len(s))
		}
	}
	if got, want := b.String(), "level=ERROR err=\"401 for [redacted]\"\nplain\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
